# `cmake --install`: headers, libdelsm (shared with its soname links, and
# static), the drop-in libleveldb.so.1d with a libleveldb.so.1 link in a
# folder of its own, the delsm tool, a CMake package (find_package(delsm):
# delsm::delsm shared, delsm::static static) and delsm.pc for pkg-config.
include(CMakePackageConfigHelpers)

set(DELSM_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/delsm)
set(DELSM_DROPIN_DIR ${CMAKE_INSTALL_LIBDIR}/delsm/leveldb-dropin)

install(TARGETS delsm_shared delsm_static EXPORT delsmTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR}
  ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR})
install(DIRECTORY ${PROJECT_SOURCE_DIR}/include/delsm
  DESTINATION ${CMAKE_INSTALL_INCLUDEDIR} FILES_MATCHING PATTERN "*.h")

# No libleveldb.so development link: nothing should link against the
# drop-in by name; programs reach it through the loader's search path.
install(TARGETS leveldb_dropin LIBRARY DESTINATION ${DELSM_DROPIN_DIR} NAMELINK_SKIP)
install(FILES ${PROJECT_BINARY_DIR}/dropin/libleveldb.so.1 DESTINATION ${DELSM_DROPIN_DIR})

if(TARGET delsm_tool)
  install(TARGETS delsm_tool RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
endif()

install(EXPORT delsmTargets NAMESPACE delsm:: DESTINATION ${DELSM_CMAKE_DIR})
configure_package_config_file(${CMAKE_CURRENT_LIST_DIR}/delsmConfig.cmake.in
  ${PROJECT_BINARY_DIR}/delsmConfig.cmake
  INSTALL_DESTINATION ${DELSM_CMAKE_DIR}
  PATH_VARS DELSM_DROPIN_DIR)
write_basic_package_version_file(${PROJECT_BINARY_DIR}/delsmConfigVersion.cmake
  VERSION ${PROJECT_VERSION} COMPATIBILITY SameMajorVersion)
install(FILES ${PROJECT_BINARY_DIR}/delsmConfig.cmake
  ${PROJECT_BINARY_DIR}/delsmConfigVersion.cmake DESTINATION ${DELSM_CMAKE_DIR})

# delsm.pc finds its prefix from its own location (${pcfiledir}), so the
# prefix may be chosen at install time (cmake --install --prefix).
file(RELATIVE_PATH DELSM_PC_TO_PREFIX
  /prefix/${CMAKE_INSTALL_LIBDIR}/pkgconfig /prefix)
set(DELSM_PC_CFLAGS "")
if(NOT LEVELDB_INCLUDE_DIR IN_LIST CMAKE_CXX_IMPLICIT_INCLUDE_DIRECTORIES)
  set(DELSM_PC_CFLAGS " -I${LEVELDB_INCLUDE_DIR}")
endif()
configure_file(${CMAKE_CURRENT_LIST_DIR}/delsm.pc.in ${PROJECT_BINARY_DIR}/delsm.pc @ONLY)
install(FILES ${PROJECT_BINARY_DIR}/delsm.pc DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)
