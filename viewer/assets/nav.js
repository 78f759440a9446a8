// j / k: next / previous question under the current filter.
document.addEventListener("keydown", function (e) {
  if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.target.tagName === "TEXTAREA")) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  var id = e.key === "j" ? "next" : e.key === "k" ? "prev" : "";
  if (!id) return;
  var a = document.getElementById(id);
  if (a && a.href) window.location.href = a.href;
});
