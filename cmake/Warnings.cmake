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
  endif()
endfunction()
