# The install test (tests/install/install_test.sh), included from
# tests/CMakeLists.txt when DeLSM installs.
#
# so1_client is tests/api/dropin/dropin_client.cc linked by soname against a
# library named libleveldb.so.1 (DeLSM's objects under upstream LevelDB's
# soname) kept in a folder no search path names and no RPATH points to: at
# run time the client finds libleveldb.so.1 only where LD_LIBRARY_PATH says,
# which the test points at the installed drop-in folder.
add_library(leveldb_so1_stub SHARED $<TARGET_OBJECTS:delsm_objects>)
set_target_properties(leveldb_so1_stub PROPERTIES
  OUTPUT_NAME leveldb
  LIBRARY_OUTPUT_DIRECTORY ${CMAKE_CURRENT_BINARY_DIR}/so1-stub
  VERSION 1.23.0 SOVERSION 1)
target_link_libraries(leveldb_so1_stub PRIVATE ${SNAPPY_LIBRARY} Threads::Threads)
target_link_options(leveldb_so1_stub PRIVATE -Wl,--version-script=${DELSM_VERSION_SCRIPT})

add_executable(so1_client ${CMAKE_CURRENT_LIST_DIR}/../api/dropin/dropin_client.cc)
target_include_directories(so1_client PRIVATE ${LEVELDB_INCLUDE_DIR})
target_link_libraries(so1_client PRIVATE leveldb_so1_stub Threads::Threads)
set_target_properties(so1_client PROPERTIES SKIP_BUILD_RPATH ON)

add_test(NAME install_and_consume
  COMMAND bash ${CMAKE_CURRENT_LIST_DIR}/install_test.sh ${PROJECT_BINARY_DIR}
          ${PROJECT_SOURCE_DIR} ${CMAKE_INSTALL_LIBDIR} $<TARGET_FILE:so1_client>)
# A sanitized build installs sanitized libraries: the consumers must link
# the same runtime (CONSUMER_FLAGS), as a user building with it would.
set(DELSM_CONSUMER_FLAGS "")
if(DELSM_SANITIZE STREQUAL "address")
  set(DELSM_CONSUMER_FLAGS "-fsanitize=address,undefined")
elseif(DELSM_SANITIZE STREQUAL "thread")
  set(DELSM_CONSUMER_FLAGS "-fsanitize=thread")
endif()
set_tests_properties(install_and_consume PROPERTIES TIMEOUT 600 LABELS api
  ENVIRONMENT "CMAKE=${CMAKE_COMMAND};CC=${CMAKE_C_COMPILER};CONSUMER_FLAGS=${DELSM_CONSUMER_FLAGS}")
