# cmake --install: the public headers (include/indelible/, config.h with
# them), the static libraries with the CMake package that names them
# (lib/cmake/indelible: find_package(indelible), indelible::indelible), the
# pkg-config file (indelible.pc) and the `indelible` command; cpack -G DEB
# packs the same tree. scripts/check-install.sh builds a program against it.
include(GNUInstallDirs)
include(CMakePackageConfigHelpers)

set(INDELIBLE_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/indelible)
# cmake --install and cpack install what is built, without building
# everything first (the tests, the examples): build `indelible` before
# (it needs every library).
set(CMAKE_SKIP_INSTALL_ALL_DEPENDENCY ON)

# The installed libraries: every indelible_* target that the library
# (indelible_library, the INTERFACE umbrella) links, directly or not, found
# from the build graph so that a new module needs no line here. The link
# order for indelible.pc comes with it: a target after all it depends on.
function(_indelible_visit target)
  if(TARGET ${target})
    get_target_property(aliased ${target} ALIASED_TARGET)
    if(aliased)
      set(target ${aliased})
    endif()
  endif()
  if(NOT TARGET ${target} OR NOT target MATCHES "^indelible_")
    return()
  endif()
  get_property(seen GLOBAL PROPERTY _INDELIBLE_SEEN)
  if(target IN_LIST seen)
    return()
  endif()
  set_property(GLOBAL APPEND PROPERTY _INDELIBLE_SEEN ${target})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "INTERFACE_LIBRARY")
    get_target_property(deps ${target} INTERFACE_LINK_LIBRARIES)
  else()
    get_target_property(deps ${target} LINK_LIBRARIES)
  endif()
  foreach(dep IN LISTS deps)
    _indelible_visit(${dep})
  endforeach()
  set_property(GLOBAL APPEND PROPERTY _INDELIBLE_ORDER ${target})
endfunction()

_indelible_visit(indelible_library)
# The `project` verbs of include/indelible/project_command.h live with the
# CLI (indelible_cli_base: indelible::cli_base, which needs CLI11).
if(TARGET indelible_cli_base)
  _indelible_visit(indelible_cli_base)
endif()
get_property(_indelible_targets GLOBAL PROPERTY _INDELIBLE_ORDER)

set(_indelible_pc_libs "")
foreach(target IN LISTS _indelible_targets)
  string(REGEX REPLACE "^indelible_" "" export_name ${target})
  if(target STREQUAL "indelible_library")
    set(export_name indelible)
  endif()
  set_target_properties(${target} PROPERTIES EXPORT_NAME ${export_name})
  get_target_property(type ${target} TYPE)
  if(type STREQUAL "STATIC_LIBRARY")
    # Dependents first: prepend.
    set(_indelible_pc_libs "-l${target} ${_indelible_pc_libs}")
  endif()
endforeach()
message(STATUS "indelible: installs ${_indelible_targets}")

install(TARGETS ${_indelible_targets} EXPORT indelibleTargets
        ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
        INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/indelible
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")
install(FILES ${INDELIBLE_CONFIG_INCLUDE_DIR}/indelible/config.h
        DESTINATION ${CMAKE_INSTALL_INCLUDEDIR}/indelible)
if(TARGET indelible)
  install(TARGETS indelible RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

# The CMake package.
install(EXPORT indelibleTargets NAMESPACE indelible:: DESTINATION ${INDELIBLE_CMAKE_DIR})
if(TARGET indelible_cli_base)
  set(INDELIBLE_EXPORTS_CLI ON)
else()
  set(INDELIBLE_EXPORTS_CLI OFF)
endif()
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/indelibleConfig.cmake.in
                              ${PROJECT_BINARY_DIR}/indelibleConfig.cmake
                              INSTALL_DESTINATION ${INDELIBLE_CMAKE_DIR})
# 0.x: a minor version may break the API, so only the same minor matches.
write_basic_package_version_file(${PROJECT_BINARY_DIR}/indelibleConfigVersion.cmake
                                 COMPATIBILITY SameMinorVersion)
install(FILES ${PROJECT_BINARY_DIR}/indelibleConfig.cmake
              ${PROJECT_BINARY_DIR}/indelibleConfigVersion.cmake
        DESTINATION ${INDELIBLE_CMAKE_DIR})

# pkg-config. The libraries are static, so what they link is in Requires and
# Libs (not .private): `pkg-config --libs indelible` alone gives a working
# link line. Boost has no .pc files in Debian: its libraries are named.
set(_indelible_pc_requires "rocksdb >= 7.8, fmt, sqlite3 >= 3.35, zlib, openssl")
if(INDELIBLE_WITH_NATS)
  string(APPEND _indelible_pc_requires ", libnats >= 3.4")
endif()
if(INDELIBLE_WITH_POSTGRES)
  string(APPEND _indelible_pc_requires ", libpq")
endif()
string(STRIP "${_indelible_pc_libs}" INDELIBLE_PC_LIBS)
# Relocatable: the prefix is found from the .pc file's own folder.
file(RELATIVE_PATH INDELIBLE_PC_PREFIX /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
string(REGEX REPLACE "/$" "" INDELIBLE_PC_PREFIX "${INDELIBLE_PC_PREFIX}")
set(INDELIBLE_PC_REQUIRES "${_indelible_pc_requires}")
configure_file(${CMAKE_CURRENT_LIST_DIR}/indelible.pc.in ${PROJECT_BINARY_DIR}/indelible.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/indelible.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# cpack -G DEB: one package with the command, the headers, the libraries and
# both package files. Depends: what the command loads (Debian 12 names;
# scripts/check-install.sh checks them against what ldd finds). Debian's
# RocksDB CMake package links its static archive, so the command needs
# RocksDB's compression libraries rather than librocksdb7.8; OpenSSL is
# the HTTP(S) client's. Suggests: the -dev packages a program that links the
# library needs.
set(INDELIBLE_DEB_MAINTAINER "indelible maintainers <maintainers@users.noreply.a-seed-68122009.example>"
    CACHE STRING "Maintainer field of the .deb")
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME indelible)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_CONTACT "${INDELIBLE_DEB_MAINTAINER}")
set(CPACK_DEBIAN_PACKAGE_MAINTAINER "${INDELIBLE_DEB_MAINTAINER}")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "event store for event-sourced and CQRS systems")
set(CPACK_PACKAGE_DESCRIPTION
    "Append facts to streams with optimistic concurrency, read them back per stream or in one "
    "global order, subscribe to new ones. Embedded (one folder on disk, on RocksDB) or served "
    "over HTTP/JSON by `indelible serve`. This package holds the indelible command and the "
    "static C++ library with its headers, CMake package and pkg-config file.")
set(CPACK_DEBIAN_PACKAGE_SECTION database)
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(_indelible_deb_depends
    "libc6, libstdc++6, libgcc-s1, libsnappy1v5, liblz4-1, libzstd1, libbz2-1.0, zlib1g"
    "libssl3, libsqlite3-0, libfmt9, libboost-json1.81.0, libboost-url1.81.0")
set(_indelible_deb_suggests
    "librocksdb-dev, libssl-dev, libsqlite3-dev, libfmt-dev, libboost-json1.81-dev"
    "libboost-url1.81-dev, libboost1.81-dev, zlib1g-dev, pkg-config")
if(INDELIBLE_WITH_NATS)
  list(APPEND _indelible_deb_depends libnats3.4)
  list(APPEND _indelible_deb_suggests libnats-dev)
endif()
if(INDELIBLE_WITH_POSTGRES)
  list(APPEND _indelible_deb_depends libpq5)
  list(APPEND _indelible_deb_suggests libpq-dev)
endif()
if(TARGET indelible_cli_base)
  list(APPEND _indelible_deb_suggests libcli11-dev)
endif()
list(JOIN _indelible_deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
list(JOIN _indelible_deb_suggests ", " CPACK_DEBIAN_PACKAGE_SUGGESTS)
include(CPack)
