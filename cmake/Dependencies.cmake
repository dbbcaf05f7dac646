# Every dependency comes from Debian 12's apt (scripts/install-deps.sh installs them).
find_package(Threads REQUIRED)
find_package(RocksDB 7.8 CONFIG REQUIRED)
find_package(boost_json 1.81 CONFIG REQUIRED)
find_package(boost_url 1.81 CONFIG REQUIRED)
find_package(boost_headers 1.81 CONFIG REQUIRED)
find_package(ZLIB REQUIRED)
# libssl-dev: the DynamoDB client's TLS and SigV4 (SHA-256, HMAC).
find_package(OpenSSL REQUIRED)
find_package(fmt CONFIG REQUIRED)
find_package(CLI11 CONFIG REQUIRED)
# libnats-dev (the NATS JetStream relay): through pkg-config, because
# Debian's cnats CMake package names a static library it does not ship.
find_package(PkgConfig REQUIRED)
pkg_check_modules(NATS REQUIRED IMPORTED_TARGET libnats>=3.4)
# libpq-dev: the PostgreSQL read store speaks libpq itself, for pipelined
# prepared statements with bound values (src/projections/postgres_store.cc).
pkg_check_modules(PQ REQUIRED IMPORTED_TARGET libpq)
# libpqxx-dev: only the test of the throwaway PostgreSQL cluster uses it.
# Debian 12 ships 6.4 with a pkg-config file and no CMake package.
pkg_check_modules(PQXX REQUIRED IMPORTED_TARGET libpqxx>=6.4)
# libsqlite3-dev (the SQLite read store).
find_package(SQLite3 3.35 REQUIRED)
if(INDELIBLE_TESTS)
  find_package(GTest CONFIG REQUIRED)
endif()
