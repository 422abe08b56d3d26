# bash completion for lrugen, lrugen-top, lrugend and lrugen-store.
#
# Installed as completions/lrugen (the other three names link to it). The
# commands, subcommands and flags come from the programs' own --help, so they
# follow the installed version; memcg paths (--memcg, --memcg-glob) come from
# 'lrugen --json show', with the --root and --interface of the command line.
# Needs nothing of the bash-completion package.

# _lrugen_flags PROGRAM [ARGS...]: the long flags that PROGRAM ARGS --help prints,
# not those of other programs it quotes ('lrugend --once')
# ('--[no-]x' gives --x and --no-x)
_lrugen_flags()
{
	"$@" --help 2>/dev/null | sed "s/'[^']*'//g" | grep -oE -- '--(\[no-\])?[a-z][a-z0-9-]*' |
		sed -e 's/^--\[no-\]\(.*\)/--\1\n--no-\1/' | grep -vx -e '--name' | sort -u
}

# _lrugen_commands PROGRAM [ARGS...]: the names in the 'commands:' block of its help
# (with LRUGEN_BLOCK set, in the block of that heading: 'plot kinds')
_lrugen_commands()
{
	"$@" --help 2>/dev/null | awk -v h="${LRUGEN_BLOCK:-commands}:" '$0 == h { f = 1; next }
		f && /^$/ { exit } f && /^  [a-z]/ { print $1 }'
}

# _lrugen_memcgs LRUGEN [--root DIR] [--interface I]: the memcg paths it reads
_lrugen_memcgs()
{
	"$@" --json show 2>/dev/null | grep -oE '"memcg": *"[^"\\]*"' |
		sed 's/^"memcg": *"\(.*\)"$/\1/' | sort -u
}

# _lrugen_value PROGRAM OPTION CUR: complete an option's value; false when
# OPTION takes none that we know
_lrugen_value()
{
	local prog=$1 opt=$2 cur=$3
	shift 3
	case $opt in
	--root|--spool|--kernel-dir) mapfile -t COMPREPLY < <(compgen -d -- "$cur") ;;
	--config|--*-file|--db|--output|--out|--replay|--import-sqlite|--tls-cert|--tls-key)
		mapfile -t COMPREPLY < <(compgen -f -- "$cur") ;;
	--interface) mapfile -t COMPREPLY < <(compgen -W 'auto cgroup debugfs' -- "$cur") ;;
	--by) mapfile -t COMPREPLY < <(compgen -W 'host node memcg' -- "$cur") ;;
	-g|--group) mapfile -t COMPREPLY < <(compgen -W 'none node host memcg' -- "$cur") ;;
	--backend) mapfile -t COMPREPLY < <(compgen -W 'sqlite clickhouse' -- "$cur") ;;
	--log-level) mapfile -t COMPREPLY < <(compgen -W 'debug info warning error' -- "$cur") ;;
	--node) mapfile -t COMPREPLY < <(compgen -W 'all 0 1 2 3' -- "$cur") ;;
	-T|--threshold|--older-than|-w|--window|--since)
		mapfile -t COMPREPLY < <(compgen -W '1m 2m 5m 10m 30m 1h 6h 24h 7d' -- "$cur") ;;
	--memcg|--memcg-glob)
		[[ $prog == lrugen ]] || return 1
		mapfile -t COMPREPLY < <(compgen -W "$(_lrugen_memcgs "$@")" -- "$cur") ;;
	*) return 1 ;;
	esac
	return 0
}

_lrugen()
{
	local prog=${COMP_WORDS[0]} cur=${COMP_WORDS[COMP_CWORD]} prev= cmd= sub= kind= i w
	local -a base=("$prog")

	COMPREPLY=()
	((COMP_CWORD > 0)) && prev=${COMP_WORDS[COMP_CWORD - 1]}
	# lrugen: the command and fleet's subcommand; --root and --interface carry
	# over to the 'lrugen show' that lists memcgs
	for ((i = 1; i < COMP_CWORD; i++)); do
		w=${COMP_WORDS[i]}
		case $w in
		--root|--interface)
			base+=("$w" "${COMP_WORDS[i + 1]}")
			((i++)) ;;
		--root=*|--interface=*) base+=("$w") ;;
		-*) ;;
		*)
			if [[ $prog == *lrugen && -z $cmd ]]; then
				cmd=$w
			elif [[ $cmd == fleet && -z $sub ]]; then
				sub=$w
			elif [[ $sub == plot && -z $kind ]]; then
				kind=$w
			fi ;;
		esac
	done
	_lrugen_value "${prog##*/}" "$prev" "$cur" "${base[@]}" && return 0
	if [[ $prog != *lrugen ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_lrugen_flags "$prog")" -- "$cur")
	elif [[ -z $cmd ]]; then
		if [[ $cur == -* ]]; then
			mapfile -t COMPREPLY < <(compgen -W "$(_lrugen_flags "$prog")" -- "$cur")
		else
			mapfile -t COMPREPLY < <(compgen -W "$(_lrugen_commands "$prog")" -- "$cur")
		fi
	elif [[ $cmd == help ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_lrugen_commands "$prog")" -- "$cur")
	elif [[ $cmd == fleet && -z $sub && $cur != -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_lrugen_commands "$prog" fleet)" -- "$cur")
	elif [[ $sub == plot && -z $kind && $cur != -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(LRUGEN_BLOCK='plot kinds' _lrugen_commands "$prog" fleet)" -- "$cur")
	elif [[ $cur == -* ]]; then
		mapfile -t COMPREPLY < <(compgen -W "$(_lrugen_flags "$prog" "$cmd")" -- "$cur")
	elif [[ $cmd == dump ]]; then
		mapfile -t COMPREPLY < <(compgen -f -- "$cur")
	fi
	return 0
}

complete -F _lrugen lrugen lrugen-top lrugend lrugen-store
