# include/indelible/config.h, generated into the build tree (and installed):
# which integrations this build has, as 0/1 macros for `#if`. Only the sites
# that plug an integration in test them (Store::Open, the CLI's DynamoDB
# verbs, bench's DynamoDB clean-up); the NATS relay and the PostgreSQL read
# store are swapped for a stub file by CMake instead (src/relay,
# src/projections), so no #if is needed there.
foreach(integration NATS POSTGRES DYNAMODB)
  if(INDELIBLE_WITH_${integration})
    set(INDELIBLE_HAVE_${integration} 1)
  else()
    set(INDELIBLE_HAVE_${integration} 0)
  endif()
endforeach()
set(INDELIBLE_CONFIG_INCLUDE_DIR ${PROJECT_BINARY_DIR}/include)
configure_file(${CMAKE_CURRENT_LIST_DIR}/config.h.in
               ${INDELIBLE_CONFIG_INCLUDE_DIR}/indelible/config.h @ONLY)
