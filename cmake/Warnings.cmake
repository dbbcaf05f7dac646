# indelible_target_warnings(target): strict warnings for our own code only;
# third-party headers come in as SYSTEM includes and are not affected.
function(indelible_target_warnings target)
  target_compile_options(${target} PRIVATE -Wall -Wextra -Wpedantic -Wshadow
                                           -Wnon-virtual-dtor -Wimplicit-fallthrough)
  if(CMAKE_CXX_COMPILER_ID MATCHES "Clang")
    target_compile_options(${target} PRIVATE -Wthread-safety)
  endif()
  if(INDELIBLE_WERROR)
    target_compile_options(${target} PRIVATE -Werror)
    # GCC 12 at -O3 reports impossible overlaps inside libstdc++'s
    # std::string when strings are concatenated (GCC bug 105329, fixed in
    # GCC 13): a false positive in the standard library, not in our code.
    # It stays a warning there; every other warning is an error.
    if(CMAKE_CXX_COMPILER_ID STREQUAL "GNU" AND CMAKE_CXX_COMPILER_VERSION VERSION_LESS 13)
      target_compile_options(${target} PRIVATE -Wno-error=restrict)
    endif()
  endif()
endfunction()
