# Every dependency comes from Debian 12's apt (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(RocksDB 7.8 CONFIG REQUIRED)
find_package(boost_json 1.81 CONFIG REQUIRED)
find_package(boost_url 1.81 CONFIG REQUIRED)
find_package(boost_headers 1.81 CONFIG REQUIRED)
find_package(ZLIB REQUIRED)
find_package(fmt CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
# libnats-dev (the NATS JetStream relay): through pkg-config, because
# Debian's cnats CMake package names a static library it does not ship.
find_package(PkgConfig REQUIRED)
pkg_check_modules(NATS REQUIRED IMPORTED_TARGET libnats>=3.4)
if(INDELIBLE_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()
