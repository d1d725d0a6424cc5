#!/bin/bash
# check_guc_table.sh — compare README.md's GUC table with what the server reports.
#
# usage: bash test/check_guc_table.sh [README.md]
#   Connects with the usual PG* environment (psql defaults), runs LOAD 'gpudb'
#   (so it works with or without shared_preload_libraries; needs a superuser)
#   and reads pg_settings WHERE name LIKE 'gpudb.%'.
#
# The table is the first markdown table under the heading "## Configuration (GUCs)"
# with the columns  name | type | default | range | description :
#   name      the GUC, e.g. `gpudb.batch_rows` (backticks optional)
#   type      pg_settings.vartype: bool, enum, integer, real or string; or
#             memory (an integer or real with a memory unit: B, kB, MB, 8kB...)
#             or time (with a time unit: ms, s, min)
#   default   pg_settings.boot_val, e.g. `on`, `auto`, `4194304`; for a GUC
#             with a unit, a value with a unit (`4GB`, `500ms`) is converted,
#             and a plain number is in the GUC's unit, as in SET: `4GB` and
#             `4194304` both match boot_val 4194304 with unit kB
#   range     integer/real: `MIN..MAX` (or MIN – MAX) = min_val..max_val, with
#             units as for the default;
#             enum: the allowed values, comma-separated (= enumvals, any order);
#             bool/string: — (or -, or empty)
# A literal | inside a cell is written \|.
#
# Fails (exit 1) on any difference, on a GUC missing from either side, or when
# the table cannot be found or read (exit 2).
set -euo pipefail

README="${1:-$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)/README.md}"
[ -r "$README" ] || { echo "check_guc_table: cannot read $README" >&2; exit 2; }

# --- README side: name<TAB>type<TAB>default<TAB>range, one line per row -----
doc="$(awk '
    function trim(s) { gsub(/^[ \t]+|[ \t]+$/, "", s); return s }
    function clean(s) { s = trim(s); gsub(/`/, "", s); gsub(/\001/, "|", s); return trim(s) }
    /^## / { insec = ($0 ~ /^## Configuration \(GUCs\)[ \t]*$/); if (insec) found = 1; if (intable) exit; next }
    !insec { next }
    /^[ \t]*\|/ {
        line = $0
        gsub(/\\\|/, "\001", line)               # escaped pipes stay in their cell
        sub(/^[ \t]*\|/, "", line); sub(/\|[ \t]*$/, "", line)
        n = split(line, c, "|")
        if (!intable) {
            intable = 1
            hdr = tolower(clean(c[1])) "|" tolower(clean(c[2])) "|" tolower(clean(c[3])) "|" tolower(clean(c[4])) "|" tolower(clean(c[5]))
            if (n != 5 || hdr != "name|type|default|range|description") {
                print "BADHEADER\t" $0; exit
            }
            next
        }
        if (clean(c[1]) ~ /^:?-+:?$/) next       # the |---|---| separator
        if (n != 5) { print "BADROW\t" $0; exit }
        printf "%s\t%s\t%s\t%s\n", clean(c[1]), clean(c[2]), clean(c[3]), clean(c[4])
        next
    }
    intable { exit }                             # first non-table line ends the table
    END { if (!found) print "NOSECTION" }
' "$README")"

case "$doc" in
    NOSECTION*) echo "check_guc_table: no '## Configuration (GUCs)' heading in $README" >&2; exit 2 ;;
    *BADHEADER*|*BADROW*) echo "check_guc_table: malformed table in $README:" >&2
                          printf '%s\n' "$doc" | grep -E '^BAD' >&2; exit 2 ;;
esac
if [ -z "$doc" ]; then
    echo "check_guc_table: the GUC table in $README has no rows" >&2; exit 2
fi

# --- server side: name<TAB>vartype<TAB>boot_val<TAB>min<TAB>max<TAB>enumvals<TAB>unit
srv="$(psql -X -q -At -F $'\t' -v ON_ERROR_STOP=1 <<'SQL'
LOAD 'gpudb';
SELECT name, vartype, coalesce(boot_val, ''), coalesce(min_val, ''),
       coalesce(max_val, ''), coalesce(array_to_string(enumvals, ','), ''),
       coalesce(unit, '')
  FROM pg_settings
 WHERE name LIKE 'gpudb.%'
 ORDER BY name;
SQL
)" || { echo "check_guc_table: could not read pg_settings" >&2; exit 2; }
if [ -z "$srv" ]; then
    echo "check_guc_table: the server reports no gpudb.* settings (is the library installed?)" >&2
    exit 1
fi

# --- compare ------------------------------------------------------------------
awk -F'\t' -v readme="$README" '
    function norm_list(s,   a, n, i, j, t) {     # "b, a ,c" -> "a,b,c"
        n = split(s, a, /[ \t]*,[ \t]*/)
        for (i = 1; i <= n; i++) { gsub(/^[ \t]+|[ \t]+$/, "", a[i]) }
        for (i = 2; i <= n; i++) for (j = i; j > 1 && a[j-1] > a[j]; j--) { t = a[j]; a[j] = a[j-1]; a[j-1] = t }
        s = ""; for (i = 1; i <= n; i++) if (a[i] != "") s = s (s == "" ? "" : ",") a[i]
        return s
    }
    function numeq(a, b) { return a == b || (a ~ /^-?[0-9.eE+-]+$/ && b ~ /^-?[0-9.eE+-]+$/ && a + 0 == b + 0) }
    # unit handling: a unit is a memory unit (factor in bytes) or a time unit
    # (factor in ms), possibly with a multiplier as pg_settings writes it (8kB)
    function unit_kind(u,   b) { b = u; sub(/^[0-9]+/, "", b)
        if (b ~ /^(B|kB|MB|GB|TB)$/) return "memory"
        if (b ~ /^(us|ms|s|min|h|d)$/) return "time"
        return "" }
    function unit_factor(u,   m, b, f) {
        m = 1; b = u
        if (match(u, /^[0-9]+/)) { m = substr(u, 1, RLENGTH) + 0; b = substr(u, RLENGTH + 1) }
        f = (b == "B") ? 1 : (b == "kB") ? 1024 : (b == "MB") ? 1048576 : (b == "GB") ? 1073741824 : \
            (b == "TB") ? 1099511627776 : (b == "us") ? 0.001 : (b == "ms") ? 1 : (b == "s") ? 1000 : \
            (b == "min") ? 60000 : (b == "h") ? 3600000 : (b == "d") ? 86400000 : 0
        return m * f }
    # the value v (README: "4GB", "4 GB", "4194304") in the base unit of the
    # server unit su; "" when it cannot be read or its unit is of another kind
    function in_base(v, su,   n, u) {
        gsub(/^[ \t]+|[ \t]+$/, "", v)
        if (!match(v, /^-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/)) return ""
        n = substr(v, 1, RLENGTH) + 0; u = substr(v, RLENGTH + 1); gsub(/^[ \t]+/, "", u)
        if (u == "") return n * unit_factor(su)
        if (unit_kind(u) == "" || unit_kind(u) != unit_kind(su)) return ""
        return n * unit_factor(u) }
    # does README value d equal server value s of a GUC with unit su?
    function valeq(d, s, su,   a, b) {
        if (su == "" || unit_kind(su) == "") return numeq(d, s)
        a = in_base(d, su); b = in_base(s, su)
        return a != "" && b != "" && a == b }
    function bad(name, what, want_doc, have_srv) {
        printf "MISMATCH %-20s %-8s README: %-22s server: %s\n", name, what, "\"" want_doc "\"", "\"" have_srv "\""
        failures++
    }
    NR == FNR { if ($1 in dtype) { printf "DUPLICATE %s in README\n", $1; failures++ }
                dtype[$1] = $2; ddef[$1] = $3; drange[$1] = $4; next }
    {
        name = $1; stype[name] = $2; sboot[name] = $3; smin[name] = $4; smax[name] = $5; senum[name] = $6
        sunit[name] = $7
    }
    END {
        for (name in dtype) if (!(name in stype)) { printf "MISSING  %-20s documented in %s but not reported by the server\n", name, readme; failures++ }
        for (name in stype) if (!(name in dtype)) { printf "MISSING  %-20s reported by the server but not in the table of %s\n", name, readme; failures++ }
        for (name in dtype) {
            if (!(name in stype)) continue
            checks++
            before = failures
            t = dtype[name]
            if (t == "boolean") t = "bool"
            if (t == "int") t = "integer"
            su = sunit[name]
            shown = (su == "" ? "" : " (unit " su ")")
            if (t == "memory" || t == "time") {
                if ((stype[name] != "integer" && stype[name] != "real") || unit_kind(su) != t)
                    bad(name, "type", dtype[name], stype[name] shown)
            } else if (t != stype[name]) bad(name, "type", dtype[name], stype[name] shown)
            if (stype[name] == "integer" || stype[name] == "real") {
                if (!valeq(ddef[name], sboot[name], su)) bad(name, "default", ddef[name], sboot[name] su)
            } else if (ddef[name] != sboot[name]) bad(name, "default", ddef[name], sboot[name])
            r = drange[name]
            if (stype[name] == "integer" || stype[name] == "real") {
                lo = r; hi = r
                if (r ~ /\.\./)        { sub(/[ \t]*\.\..*$/, "", lo); sub(/^.*\.\.[ \t]*/, "", hi) }
                else if (r ~ /–/)      { sub(/[ \t]*–.*$/, "", lo);   sub(/^.*–[ \t]*/, "", hi) }
                else                   { lo = "?"; hi = "?" }
                if (!valeq(lo, smin[name], su)) bad(name, "min", lo, smin[name] su)
                if (!valeq(hi, smax[name], su)) bad(name, "max", hi, smax[name] su)
            } else if (stype[name] == "enum") {
                if (norm_list(r) != norm_list(senum[name])) bad(name, "values", r, senum[name])
            } else {
                if (r != "" && r != "-" && r != "—") bad(name, "range", r, "(none)")
                if (smin[name] != "" || smax[name] != "") bad(name, "range", r, smin[name] ".." smax[name])
            }
            if (failures == before) printf "ok       %-20s %-8s default %s, range %s\n", name, stype[name] shown, sboot[name] su, (r == "" ? "-" : r)
        }
        if (failures) { printf "check_guc_table: FAIL (%d difference(s) between %s and pg_settings)\n", failures, readme; exit 1 }
        if (!checks) { print "check_guc_table: FAIL (nothing compared)"; exit 1 }
        printf "check_guc_table: PASS (%d GUCs: name, type, default and range agree)\n", checks
    }
' <(printf '%s\n' "$doc") <(printf '%s\n' "$srv")
