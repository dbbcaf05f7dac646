# Embeds the files of a folder in the binary, each as it is and gzipped
# (FILE and FILE.gz, both present in DIR), for the web console's assets
# (cmake -P):
#   -DDIR=folder -DFILES="index.html;app.js;app.css" -DOUTPUT=generated.cc
# The generated file defines indelible::server::ConsoleFiles() of
# src/server/console_files.h. Byte arrays, not raw strings: the gzipped
# copies are binary.
include(${CMAKE_CURRENT_LIST_DIR}/hex_bytes.cmake)
set(arrays "")
set(entries "")
set(n 0)
foreach(name IN LISTS FILES)
  foreach(variant plain gz)
    set(path "${DIR}/${name}")
    if(variant STREQUAL "gz")
      set(path "${path}.gz")
    endif()
    if(NOT EXISTS "${path}")
      message(FATAL_ERROR "${path} is missing: scripts/build-console.sh writes it")
    endif()
    indelible_hex_bytes("${path}" bytes)
    string(APPEND arrays "const unsigned char k${variant}${n}[] = {\n${bytes}};\n")
  endforeach()
  string(APPEND entries
    "    {\"${name}\", View(kplain${n}, sizeof(kplain${n})), View(kgz${n}, sizeof(kgz${n}))},\n")
  math(EXPR n "${n} + 1")
endforeach()
file(WRITE "${OUTPUT}.tmp"
  "// Generated at build time from ${DIR} by cmake/embed_files.cmake: do not edit.\n"
  "#include \"server/console_files.h\"\n\nnamespace indelible::server {\nnamespace {\n\n"
  "${arrays}\n"
  "std::string_view View(const unsigned char* bytes, std::size_t size) {\n"
  "  return {reinterpret_cast<const char*>(bytes), size};\n}\n\n"
  "}  // namespace\n\n"
  "std::span<const EmbeddedFile> ConsoleFiles() {\n"
  "  static const EmbeddedFile files[] = {\n${entries}  };\n  return files;\n}\n\n"
  "}  // namespace indelible::server\n")
file(COPY_FILE "${OUTPUT}.tmp" "${OUTPUT}" ONLY_IF_DIFFERENT)
file(REMOVE "${OUTPUT}.tmp")
