# Every dependency comes from Debian 12's apt (scripts/install-deps.sh installs them).
# Always: what the library needs with every integration off (README, "Build
# options"); cmake/indelibleConfig.cmake.in finds the same for a program
# that links the installed library.
find_package(Threads REQUIRED)
find_package(RocksDB 7.8 CONFIG REQUIRED)
find_package(boost_json 1.81 CONFIG REQUIRED)
find_package(boost_url 1.81 CONFIG REQUIRED)
find_package(boost_headers 1.81 CONFIG REQUIRED)
find_package(ZLIB REQUIRED)
# libssl-dev: TLS of the HTTP(S) client, and SigV4 (SHA-256, HMAC) of the
# DynamoDB client.
find_package(OpenSSL REQUIRED)
find_package(fmt CONFIG REQUIRED)
# Event schemas (src/schemas/): header-only, used privately, so the
# installed package does not need them.
find_package(valijson CONFIG REQUIRED)
find_package(nlohmann_json 3.11 CONFIG REQUIRED)
# libsqlite3-dev: the SQLite read store, the projections' embedded default.
find_package(SQLite3 3.35 REQUIRED)
# The command line of `indelible` and of the examples (header-only).
if(INDELIBLE_PROGRAMS)
  find_package(CLI11 CONFIG REQUIRED)
endif()

# Optional integrations (the INDELIBLE_WITH_* options in CMakeLists.txt).
if(INDELIBLE_WITH_NATS OR INDELIBLE_WITH_POSTGRES)
  find_package(PkgConfig REQUIRED)
endif()
# libnats-dev (the NATS JetStream relay): through pkg-config, because
# Debian's cnats CMake package names a static library it does not ship.
if(INDELIBLE_WITH_NATS)
  pkg_check_modules(NATS REQUIRED IMPORTED_TARGET libnats>=3.4)
endif()
# libpq-dev: the PostgreSQL read store speaks libpq itself, for pipelined
# prepared statements with bound values (src/projections/postgres_store.cc).
if(INDELIBLE_WITH_POSTGRES)
  pkg_check_modules(PQ REQUIRED IMPORTED_TARGET libpq)
endif()

if(INDELIBLE_TESTS)
  find_package(GTest CONFIG REQUIRED)
  # libpqxx-dev: only the test of the throwaway PostgreSQL cluster uses it.
  # Debian 12 ships 6.4 with a pkg-config file and no CMake package.
  if(INDELIBLE_WITH_POSTGRES)
    pkg_check_modules(PQXX REQUIRED IMPORTED_TARGET libpqxx>=6.4)
  endif()
endif()

# Node.js and npm build the web console (scripts/build-console.sh).
if(INDELIBLE_WITH_CONSOLE)
  find_program(INDELIBLE_NODE node)
  find_program(INDELIBLE_NPM npm)
  if(NOT INDELIBLE_NODE OR NOT INDELIBLE_NPM)
    message(FATAL_ERROR "The web console is built with Node.js and npm, and they were not found: "
                        "install them (scripts/install-deps.sh, or apt-get install nodejs npm), "
                        "or configure with -DINDELIBLE_WITH_CONSOLE=OFF for a server without it")
  endif()
endif()
