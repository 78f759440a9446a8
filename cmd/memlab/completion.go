package main

import (
	"flag"
	"fmt"
	"io"
	"sort"
	"strings"
)

// cmdCompletion is `memlab completion bash|zsh|fish`: it prints a script
// completing memlab's commands, subcommands and flags, generated from the
// command table and each command's FlagSet (flagsOf), and file names for
// the positional arguments and flag values.
func cmdCompletion(args []string, stdout io.Writer) error {
	fs := flag.NewFlagSet("completion", flag.ContinueOnError)
	pos, err := parseInterspersed(fs, args)
	if err != nil {
		return err
	}
	if len(pos) != 1 {
		return usagef("completion takes one shell: bash, zsh or fish, got %d arguments", len(pos))
	}
	var s string
	switch pos[0] {
	case "bash":
		s = bashCompletion()
	case "zsh":
		s = zshCompletion()
	case "fish":
		s = fishCompletion()
	default:
		return usagef("completion: unknown shell %q (want bash, zsh or fish)", pos[0])
	}
	_, err = io.WriteString(stdout, s)
	return err
}

// completionEntry is what the scripts know of one command path.
type completionEntry struct {
	path  string // "" for memlab itself, "runs list"
	cmd   *command
	subs  []*command
	flags []*flag.Flag
}

// completionEntries walks the command table: memlab itself, then every
// visible command path, with its subcommands and flags.
func completionEntries() []completionEntry {
	out := []completionEntry{{path: "", subs: visible(commands)}}
	var walk func(prefix string, cs []*command)
	walk = func(prefix string, cs []*command) {
		for _, c := range cs {
			if c.hidden {
				continue
			}
			p := strings.TrimSpace(prefix + " " + c.name)
			e := completionEntry{path: p, cmd: c, subs: visible(c.subs)}
			if c.name != "help" {
				if fs := flagsOf(c); fs != nil {
					fs.VisitAll(func(f *flag.Flag) { e.flags = append(e.flags, f) })
				}
			}
			out = append(out, e)
			walk(p, c.subs)
		}
	}
	walk("", commands)
	return out
}

func visible(cs []*command) []*command {
	var out []*command
	for _, c := range cs {
		if !c.hidden {
			out = append(out, c)
		}
	}
	return out
}

// isBoolFlag reports whether f takes no value.
func isBoolFlag(f *flag.Flag) bool {
	b, ok := f.Value.(interface{ IsBoolFlag() bool })
	return ok && b.IsBoolFlag()
}

// flagNames lists "-name" of flags (only those taking a value when
// valued).
func flagNames(fl []*flag.Flag, valued bool) []string {
	var out []string
	for _, f := range fl {
		if valued && isBoolFlag(f) {
			continue
		}
		out = append(out, "-"+f.Name)
	}
	sort.Strings(out)
	return out
}

func names(cs []*command) []string {
	out := make([]string, len(cs))
	for i, c := range cs {
		out[i] = c.name
	}
	return out
}

// bashFunctions are the functions of the bash script (also used by zsh
// through bashcompinit).
func bashFunctions() string {
	var subs, flags, valued strings.Builder
	for _, e := range completionEntries() {
		if len(e.subs) > 0 {
			fmt.Fprintf(&subs, "    %q) echo %q ;;\n", e.path, strings.Join(names(e.subs), " "))
		}
		if e.cmd != nil && e.cmd.run != nil {
			fmt.Fprintf(&flags, "    %q) echo %q ;;\n", e.path, strings.Join(append(flagNames(e.flags, false), "-h"), " "))
			if v := flagNames(e.flags, true); len(v) > 0 {
				fmt.Fprintf(&valued, "    %q) echo %q ;;\n", e.path, strings.Join(v, " "))
			}
		}
	}
	return `# memlab shell completion (memlab completion bash), generated from
# memlab's command table and flags.

# _memlab_subs PATH: the subcommands of the command PATH ("" = memlab).
_memlab_subs() {
  case "$1" in
    help|help\ *) local p="${1#help}"; _memlab_subs "${p# }" ;;
` + subs.String() + `  esac
}

# _memlab_flags PATH: the flags of the command PATH.
_memlab_flags() {
  case "$1" in
` + flags.String() + `  esac
}

# _memlab_valued PATH: the flags of PATH that take a value.
_memlab_valued() {
  case "$1" in
` + valued.String() + `  esac
}

_memlab() {
  local cur="${COMP_WORDS[COMP_CWORD]}" prev="" path="" w i subs
  COMPREPLY=()
  for ((i = 1; i < COMP_CWORD; i++)); do
    w="${COMP_WORDS[i]}"
    [[ $w == -* ]] && continue
    subs=" $(_memlab_subs "$path") "
    if [[ $subs == *" $w "* ]]; then
      path="${path:+$path }$w"
    else
      break
    fi
  done
  ((COMP_CWORD > 1)) && prev="${COMP_WORDS[COMP_CWORD - 1]}"
  if [[ $prev == -* && $prev != *=* && " $(_memlab_valued "$path") " == *" $prev "* ]]; then
    COMPREPLY=($(compgen -f -- "$cur"))
    return 0
  fi
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$(_memlab_flags "$path")" -- "$cur"))
    [[ -z $path ]] && COMPREPLY=($(compgen -W "-h --help --version" -- "$cur"))
    return 0
  fi
  subs="$(_memlab_subs "$path")"
  if [[ -n $subs ]]; then
    COMPREPLY=($(compgen -W "$subs" -- "$cur"))
    ((${#COMPREPLY[@]} > 0)) && return 0
  fi
  COMPREPLY=($(compgen -f -- "$cur"))
  return 0
}
`
}

func bashCompletion() string {
	return bashFunctions() + `
complete -o default -o filenames -F _memlab memlab
`
}

// zshCompletion is the bash functions under zsh's bashcompinit, as
// several Go CLIs ship theirs.
func zshCompletion() string {
	return `#compdef memlab
# memlab shell completion for zsh (memlab completion zsh): write it to a
# directory of $fpath as _memlab, or source it.
autoload -U +X bashcompinit && bashcompinit
` + bashFunctions() + `
complete -o default -o filenames -F _memlab memlab
`
}

// fishCompletion is a fish script: commands and subcommands with their
// descriptions, each command's flags as old-style (single-dash) options.
func fishCompletion() string {
	var b strings.Builder
	b.WriteString("# memlab shell completion for fish (memlab completion fish), generated from\n# memlab's command table and flags.\n")
	b.WriteString("complete -c memlab -f\n")
	// __memlab_path prints the command path typed so far.
	b.WriteString(`function __memlab_path
    set -l words (commandline -opc)
    set -e words[1]
    set -l path
    for w in $words
        string match -q -- '-*' $w; and continue
        set -l subs (__memlab_subs (string join ' ' $path))
        if contains -- $w $subs
            set path $path $w
        else
            break
        end
    end
    string join ' ' $path
end
function __memlab_at
    set -l p (__memlab_path)
    test "$p" = "$argv"
end
function __memlab_subs
    switch "$argv"
`)
	for _, e := range completionEntries() {
		if len(e.subs) > 0 {
			fmt.Fprintf(&b, "        case %s\n            printf '%%s\\n' %s\n", fishQuote(e.path), strings.Join(names(e.subs), " "))
		}
	}
	b.WriteString("    end\nend\n")
	for _, e := range completionEntries() {
		cond := "__memlab_at " + fishQuote(e.path)
		for _, s := range e.subs {
			fmt.Fprintf(&b, "complete -c memlab -n %s -a %s -d %s\n", fishQuote(cond), s.name, fishQuote(s.short))
		}
		for _, f := range e.flags {
			req := ""
			if !isBoolFlag(f) {
				req = " -r -F"
			}
			usage, _ := flag.UnquoteUsage(f)
			fmt.Fprintf(&b, "complete -c memlab -n %s -o %s%s -d %s\n", fishQuote(cond), f.Name, req, fishQuote(firstSentence(usage)))
		}
		if e.cmd != nil && e.cmd.files {
			fmt.Fprintf(&b, "complete -c memlab -n %s -F\n", fishQuote(cond))
		}
	}
	return b.String()
}

func fishQuote(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(s) + "'"
}

// firstSentence cuts a flag's usage for a one-line description.
func firstSentence(s string) string {
	if i := strings.IndexAny(s, "(;:"); i > 0 {
		s = s[:i]
	}
	return strings.TrimSpace(s)
}
