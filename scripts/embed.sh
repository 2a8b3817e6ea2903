#!/bin/sh
# scripts/embed.sh FILE... - the files as C string constants (for
# src/opgen/headers.c): opgen_header_names[] their base names,
# opgen_header_texts[] their text, opgen_header_count how many.  Every
# backslash, quote and question mark escaped (no trigraph survives).
set -e
echo "/* Made by scripts/embed.sh from $(for f in "$@"; do basename "$f"; done | tr '\n' ' ')- do not edit. */"
echo "#include \"opgen/opgen.h\""
echo "const char *const opgen_header_names[] = {"
for f in "$@"; do echo "	\"$(basename "$f")\","; done
echo "};"
echo "const char *const opgen_header_texts[] = {"
for f in "$@"; do
	sed -e 's/\\/\\\\/g' -e 's/"/\\"/g' -e 's/?/\\?/g' -e 's/^/	"/' \
	    -e 's/$/\\n"/' "$f"
	echo "	,"
done
echo "};"
echo "const unsigned opgen_header_count = $#;"
