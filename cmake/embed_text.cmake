# Embeds a text file in the binary as a std::string_view (cmake -P):
#   -DINPUT=file -DOUTPUT=generated.cc -DSYMBOL=name -DNAMESPACE=ns
# The document is served from memory, so the binary needs nothing beside it.
# The raw string's delimiter (at most 16 characters, C++'s limit) must not occur
# in the file (checked).
file(READ "${INPUT}" content)
string(FIND "${content}" ")embedded_text\"" clash)
if(NOT clash EQUAL -1)
  message(FATAL_ERROR "${INPUT} contains the raw string delimiter; it cannot be embedded")
endif()
file(WRITE "${OUTPUT}.tmp"
  "// Generated at build time from ${INPUT} by cmake/embed_text.cmake: do not edit.\n"
  "#include <string_view>\n\nnamespace ${NAMESPACE} {\n\n"
  "extern const std::string_view ${SYMBOL};\n"
  "const std::string_view ${SYMBOL} = R\"embedded_text(${content})embedded_text\";\n\n"
  "}  // namespace ${NAMESPACE}\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
