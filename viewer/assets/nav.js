// j / k: next / previous question under the current filter.
document.addEventListener("keydown", function (e) {
  if (e.target && (e.target.tagName === "INPUT" || e.target.tagName === "SELECT" || e.target.tagName === "TEXTAREA")) return;
  if (e.ctrlKey || e.metaKey || e.altKey) return;
  var id = e.key === "j" ? "next" : e.key === "k" ? "prev" : "";
  if (!id) return;
  var a = document.getElementById(id);
  if (a && a.href) window.location.href = a.href;
});

// A page showing a run in progress (an element #live) reloads its content
// in place every data-every milliseconds while it shows one, without a
// reload of the page: not while a form field has the focus, and keeping
// the runs picked for comparison.
(function () {
  function poll() {
    var live = document.getElementById("live");
    if (!live) return;
    setTimeout(function () {
      var a = document.activeElement;
      if (a && (a.tagName === "INPUT" || a.tagName === "SELECT" || a.tagName === "TEXTAREA")) {
        poll();
        return;
      }
      fetch(window.location.href, { headers: { "Accept": "text/html" } }).then(function (r) {
        return r.ok ? r.text() : null;
      }).then(function (html) {
        if (html !== null) {
          var picked = [];
          document.querySelectorAll("input[type=radio]:checked, input[type=checkbox]:checked").forEach(function (e) { picked.push([e.name, e.value]); });
          var doc = new DOMParser().parseFromString(html, "text/html");
          document.body.innerHTML = doc.body.innerHTML;
          picked.forEach(function (p) {
            document.querySelectorAll("input[type=radio], input[type=checkbox]").forEach(function (e) {
              if (e.name === p[0] && e.value === p[1]) e.checked = true;
            });
          });
        }
        poll();
      }).catch(poll);
    }, Number(live.getAttribute("data-every")) || 3000);
  }
  poll();
})();
