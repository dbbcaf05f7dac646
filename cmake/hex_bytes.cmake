# indelible_hex_bytes(FILE OUT): OUT is FILE's bytes as a C++ initializer
# list ("0x7b,0x0a,..."), 32 to a line; for cmake/embed_text.cmake and
# cmake/embed_files.cmake, which embed files as byte arrays.
function(indelible_hex_bytes file out)
  file(READ "${file}" hex HEX)
  if(hex STREQUAL "")
    message(FATAL_ERROR "${file} is empty")
  endif()
  string(REGEX REPLACE "([0-9a-f][0-9a-f])" "0x\\1," bytes "${hex}")
  # Lines of 32 bytes, so that compilers and editors meet no giant line.
  string(REGEX REPLACE "((0x[0-9a-f][0-9a-f],){32})" "\\1\n" bytes "${bytes}")
  set(${out} "${bytes}" PARENT_SCOPE)
endfunction()
