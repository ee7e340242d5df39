# Turns a file into a C array (the web UI's page is built into the binary:
# no files to find at run time, nothing served from the file system).
# cmake -DIN=file -DOUT=file.c -DNAME=symbol -P embed.cmake
file(READ "${IN}" hex HEX)
string(LENGTH "${hex}" len)
math(EXPR size "${len} / 2")
string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
file(WRITE "${OUT}" "/* generated from ${IN} */\n#include <stddef.h>\nconst unsigned char ${NAME}[] = {${bytes}0};\nconst size_t ${NAME}_size = ${size};\n")
