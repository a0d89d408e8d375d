# Special test targets, included at the end of tests/CMakeLists.txt.

# Binary drop-in: dropin_client is an ordinary LevelDB
# client built against the system headers and linked with Debian's
# libleveldb.so.1d by full path. dropin_test runs it on Debian's library and
# then, through LD_LIBRARY_PATH, on the build's libleveldb.so.1d.
find_file(DELSM_DEBIAN_LEVELDB libleveldb.so.1d
  PATHS /usr/lib/${CMAKE_LIBRARY_ARCHITECTURE} /usr/lib /usr/lib64
  NO_DEFAULT_PATH)
if(TARGET dropin_test AND DELSM_DEBIAN_LEVELDB)
  add_executable(dropin_client ${CMAKE_CURRENT_SOURCE_DIR}/api/dropin/dropin_client.cc)
  target_include_directories(dropin_client PRIVATE ${LEVELDB_INCLUDE_DIR})
  target_link_libraries(dropin_client PRIVATE ${DELSM_DEBIAN_LEVELDB} Threads::Threads)
  # No RPATH: the loader must be free to take LD_LIBRARY_PATH's library.
  set_target_properties(dropin_client PROPERTIES SKIP_BUILD_RPATH ON)
  # options_client: the same kind of program, keeping its database so the
  # DELSM_OPTIONS test can read its LOG.
  add_executable(options_client ${CMAKE_CURRENT_SOURCE_DIR}/api/dropin/options_client.cc)
  target_include_directories(options_client PRIVATE ${LEVELDB_INCLUDE_DIR})
  target_link_libraries(options_client PRIVATE ${DELSM_DEBIAN_LEVELDB} Threads::Threads)
  set_target_properties(options_client PROPERTIES SKIP_BUILD_RPATH ON)
  add_dependencies(dropin_test dropin_client options_client leveldb_dropin)
  target_compile_definitions(dropin_test PRIVATE
    DROPIN_CLIENT="$<TARGET_FILE:dropin_client>"
    OPTIONS_CLIENT="$<TARGET_FILE:options_client>"
    DROPIN_LIBRARY_DIR="$<TARGET_FILE_DIR:leveldb_dropin>")
elseif(TARGET dropin_test)
  message(WARNING "Debian's libleveldb.so.1d not found: dropin_test will fail")
endif()

# Debian's python3-plyvel, on Debian's python3 (the
# interpreter that package is installed for), reads through the drop-in a
# database it created on Debian's LevelDB. Fails if plyvel is missing
# (scripts/setup.sh and .ci/run install python3-plyvel).
# Not under a sanitizer: the drop-in is loaded by dlopen into Debian's
# uninstrumented python3, and a sanitizer runtime cannot come in that late
# (ASan refuses: "runtime does not come first"). The C/C++ drop-in client
# (dropin_test) covers the sanitized library through the same API.
if(NOT DELSM_SANITIZE)
  add_test(NAME plyvel_dropin
    COMMAND /usr/bin/python3 ${CMAKE_CURRENT_SOURCE_DIR}/api/dropin/plyvel_test.py
            $<TARGET_FILE_DIR:leveldb_dropin>)
  set_tests_properties(plyvel_dropin PROPERTIES TIMEOUT 600 LABELS api)
endif()

# Crash soak: kills a writer with SIGKILL for a given time and
# checks the database against a model after each kill. The default suite
# runs it for 60 s with a fresh seed (printed first and last;
# DELSM_TEST_SEED=<seed> replays it); scripts/soak.sh runs it for longer.
add_executable(crash_soak ${CMAKE_CURRENT_SOURCE_DIR}/crash/soak/crash_soak.cc
  ${CMAKE_CURRENT_SOURCE_DIR}/crash/soak/soak_child.cc)
target_link_libraries(crash_soak delsm_internal)
add_test(NAME crash_soak_60s COMMAND crash_soak --seconds=60)
math(EXPR crash_soak_timeout "300 * ${DELSM_TIMEOUT_SCALE}")
set_tests_properties(crash_soak_60s PROPERTIES TIMEOUT ${crash_soak_timeout}
  LABELS "crash;slow")

# LevelDB oracle: creates and dumps databases with
# Debian's LevelDB in a separate process; the CLI is documented at the top
# of leveldb_oracle.cc. Tests listed in DELSM_ORACLE_TESTS get its path as
# LEVELDB_ORACLE.
set(DELSM_ORACLE_TESTS leveldb_format_test leveldb_conversion_crash_test
  leveldb_conversion_symlink_test
  malformed_batch_test
  delsm_export_test leveldb_scenarios_test leveldb_lifecycle_test
  leveldb_repair_replaced_sst_test
  repair_meta_group_test leveldb_table_repair_test leveldb_take_in_kill_test
  stat_failure_test open_format_race_test earlier_database_test
  lost_file_test leveldb_convertible_error_test lifecycle_chain_test
  leveldb_repair_plan_chain_test)
if(DELSM_DEBIAN_LEVELDB)
  add_executable(leveldb_oracle
    ${CMAKE_CURRENT_SOURCE_DIR}/leveldb_oracle/leveldb_oracle.cc)
  target_include_directories(leveldb_oracle PRIVATE ${LEVELDB_INCLUDE_DIR})
  target_link_libraries(leveldb_oracle PRIVATE ${DELSM_DEBIAN_LEVELDB}
    Threads::Threads)
  foreach(t ${DELSM_ORACLE_TESTS})
    if(TARGET ${t})
      add_dependencies(${t} leveldb_oracle)
      target_compile_definitions(${t} PRIVATE
        LEVELDB_ORACLE="$<TARGET_FILE:leveldb_oracle>")
    endif()
  endforeach()
else()
  message(WARNING "Debian's libleveldb.so.1d not found: the LevelDB oracle "
                  "tests will fail")
endif()
