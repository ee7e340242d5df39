# Helpers for the CLI tests: run a command, check its exit code and output.
FAILS=0
PASSES=0
TMPD=$(mktemp -d)
trap 'rm -rf "$TMPD"' EXIT

pass() { PASSES=$((PASSES + 1)); }
fail() { echo "FAIL: $*"; FAILS=$((FAILS + 1)); }

# expect_exit CODE DESCRIPTION -- command...
expect_exit() {
    local want=$1 what=$2
    shift 3
    "$@" >"$TMPD/out" 2>"$TMPD/err"
    local got=$?
    if [ "$got" -ne "$want" ]; then
        fail "$what: exit $got, expected $want"
        sed 's/^/    stderr: /' "$TMPD/err" | head -5
    else
        pass
    fi
}

expect_stderr() { # PATTERN DESCRIPTION
    if grep -qE -- "$1" "$TMPD/err"; then pass; else fail "$2: stderr lacks /$1/: $(head -c 300 "$TMPD/err")"; fi
}

expect_stdout() { # PATTERN DESCRIPTION
    if grep -qE -- "$1" "$TMPD/out"; then pass; else fail "$2: stdout lacks /$1/: $(head -c 300 "$TMPD/out")"; fi
}

expect_same() { # FILE1 FILE2 DESCRIPTION
    if cmp -s "$1" "$2"; then pass; else fail "$3: $1 and $2 differ"; fi
}

finish() {
    echo "$PASSES passed, $FAILS failed"
    [ "$FAILS" -eq 0 ]
}
