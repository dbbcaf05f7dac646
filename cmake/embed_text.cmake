# Embeds a text file in the binary as a std::string_view (cmake -P):
#   -DINPUT=file -DOUTPUT=generated.cc -DSYMBOL=name -DNAMESPACE=ns
# The document is served from memory, so the binary needs nothing beside it.
# A byte array, not a string literal: compilers need not take literals over
# 64 KiB (clang's -Woverlength-strings), and no delimiter can clash.
include(${CMAKE_CURRENT_LIST_DIR}/hex_bytes.cmake)
indelible_hex_bytes("${INPUT}" bytes)
file(WRITE "${OUTPUT}.tmp"
  "// Generated at build time from ${INPUT} by cmake/embed_text.cmake: do not edit.\n"
  "#include <string_view>\n\nnamespace ${NAMESPACE} {\nnamespace {\n\n"
  "const unsigned char kBytes[] = {\n${bytes}};\n\n"
  "}  // namespace\n\n"
  "extern const std::string_view ${SYMBOL};\n"
  "const std::string_view ${SYMBOL}(reinterpret_cast<const char*>(kBytes), sizeof(kBytes));\n\n"
  "}  // namespace ${NAMESPACE}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
