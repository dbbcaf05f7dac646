# indelible_module(TARGET LAYER N [HEADERS name.h...]): the record of
# DESIGN.md's module order, kept in the build itself so that
# scripts/check_layers.py reads it from CMake's File API and from nothing
# else. The layer travels as the target's FOLDER ("layers/N", which IDEs
# also show), and the public headers a module implements are listed among
# its sources, so each include/indelible/*.h has exactly one owner.
# A module uses only modules of lower layers; modules of one layer never
# use each other.
function(indelible_module target)
  cmake_parse_arguments(PARSE_ARGV 1 arg "" "LAYER" "HEADERS")
  if(NOT DEFINED arg_LAYER)
    message(FATAL_ERROR "indelible_module(${target}): LAYER is required")
  endif()
  set_target_properties(${target} PROPERTIES FOLDER "layers/${arg_LAYER}")
  foreach(header IN LISTS arg_HEADERS)
    if(header STREQUAL "config.h")
      target_sources(${target} PRIVATE ${INDELIBLE_CONFIG_INCLUDE_DIR}/indelible/config.h)
    else()
      target_sources(${target} PRIVATE ${PROJECT_SOURCE_DIR}/include/indelible/${header})
    endif()
  endforeach()
endfunction()
