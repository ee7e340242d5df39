# The installable library: libflowcut.so (versioned, SONAME libflowcut.so.0,
# only the public headers' symbols exported) and libflowcut.a, both made of
# the four modules' objects; headers, the flowcut binary, flowcut.pc, the
# CMake package (find_package(flowcut): flowcut::flowcut and
# flowcut::flowcut_static), the Python module and the manual page.
set(FLOWCUT_MODULES flowcut_maxflow flowcut_graphbuild flowcut_images flowcut_segment)
set(FLOWCUT_OBJECTS)
foreach(m ${FLOWCUT_MODULES})
  list(APPEND FLOWCUT_OBJECTS $<TARGET_OBJECTS:${m}>)
endforeach()
# what the modules link against, for both libraries
set(FLOWCUT_DEPS PNG::PNG JPEG::JPEG ${STB_LIBRARY} m Threads::Threads)
if(FLOWCUT_HAVE_CUDA)
  list(APPEND FLOWCUT_DEPS CUDA::cudart_static)
endif()

add_library(flowcut_shared SHARED ${FLOWCUT_OBJECTS})
add_library(flowcut_static STATIC ${FLOWCUT_OBJECTS})
set_target_properties(flowcut_shared PROPERTIES OUTPUT_NAME flowcut EXPORT_NAME flowcut
  VERSION ${PROJECT_VERSION} SOVERSION ${PROJECT_VERSION_MAJOR})
target_link_options(flowcut_shared PRIVATE "LINKER:--version-script=${CMAKE_SOURCE_DIR}/cmake/flowcut.map")
set_property(TARGET flowcut_shared APPEND PROPERTY LINK_DEPENDS ${CMAKE_SOURCE_DIR}/cmake/flowcut.map)
if(NOT FLOWCUT_SANITIZE AND NOT FLOWCUT_FUZZ) # an ASan library leaves its runtime to the executable
  target_link_options(flowcut_shared PRIVATE "LINKER:--no-undefined")
endif()
set_target_properties(flowcut_static PROPERTIES OUTPUT_NAME flowcut EXPORT_NAME flowcut_static)
if(FLOWCUT_HAVE_CUDA)
  set_target_properties(flowcut_shared flowcut_static PROPERTIES LINKER_LANGUAGE CUDA)
endif()
target_link_libraries(flowcut_shared PRIVATE ${FLOWCUT_DEPS})
target_link_libraries(flowcut_static PUBLIC ${FLOWCUT_DEPS})
if(FLOWCUT_HAVE_CUDA)
  # the CUDA host code needs the C++ runtime when a C program links it statically
  target_link_libraries(flowcut_static PUBLIC stdc++)
endif()
foreach(t flowcut_shared flowcut_static)
  target_include_directories(${t} INTERFACE $<INSTALL_INTERFACE:${CMAKE_INSTALL_INCLUDEDIR}>
    $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/maxflow/include> $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/graphbuild/include>
    $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/images/include> $<BUILD_INTERFACE:${CMAKE_SOURCE_DIR}/segment/include>)
endforeach()

install(TARGETS flowcut RUNTIME DESTINATION ${CMAKE_INSTALL_BINDIR})
# the manual page, compressed as Debian keeps them (gzip -n: the same bytes at every build)
find_program(FLOWCUT_GZIP gzip)
mark_as_advanced(FLOWCUT_GZIP)
if(FLOWCUT_GZIP)
  add_custom_command(OUTPUT ${CMAKE_BINARY_DIR}/man/flowcut.1.gz
    COMMAND ${CMAKE_COMMAND} -E copy ${CMAKE_SOURCE_DIR}/docs/flowcut.1 ${CMAKE_BINARY_DIR}/man/flowcut.1
    COMMAND ${FLOWCUT_GZIP} -9nf ${CMAKE_BINARY_DIR}/man/flowcut.1
    DEPENDS ${CMAKE_SOURCE_DIR}/docs/flowcut.1 VERBATIM)
  add_custom_target(flowcut_man ALL DEPENDS ${CMAKE_BINARY_DIR}/man/flowcut.1.gz)
  install(FILES ${CMAKE_BINARY_DIR}/man/flowcut.1.gz DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
else()
  install(FILES ${CMAKE_SOURCE_DIR}/docs/flowcut.1 DESTINATION ${CMAKE_INSTALL_MANDIR}/man1)
endif()
install(TARGETS flowcut_shared flowcut_static EXPORT flowcutTargets
  LIBRARY DESTINATION ${CMAKE_INSTALL_LIBDIR} ARCHIVE DESTINATION ${CMAKE_INSTALL_LIBDIR}
  INCLUDES DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
foreach(dir maxflow graphbuild images segment)
  install(DIRECTORY ${CMAKE_SOURCE_DIR}/${dir}/include/flowcut DESTINATION ${CMAKE_INSTALL_INCLUDEDIR})
endforeach()

# CMake package
include(CMakePackageConfigHelpers)
set(FLOWCUT_CMAKE_DIR ${CMAKE_INSTALL_LIBDIR}/cmake/flowcut)
install(EXPORT flowcutTargets NAMESPACE flowcut:: DESTINATION ${FLOWCUT_CMAKE_DIR})
configure_package_config_file(${CMAKE_SOURCE_DIR}/cmake/flowcutConfig.cmake.in
  ${CMAKE_BINARY_DIR}/flowcutConfig.cmake INSTALL_DESTINATION ${FLOWCUT_CMAKE_DIR})
write_basic_package_version_file(${CMAKE_BINARY_DIR}/flowcutConfigVersion.cmake
  COMPATIBILITY SameMajorVersion)
install(FILES ${CMAKE_BINARY_DIR}/flowcutConfig.cmake ${CMAKE_BINARY_DIR}/flowcutConfigVersion.cmake
  DESTINATION ${FLOWCUT_CMAKE_DIR})

# pkg-config. flowcut.pc is the shared library (-lflowcut); with --static it
# adds what a fully static program needs (cc -static ...). GNU ld takes
# -lflowcut as libflowcut.so whenever that sits beside libflowcut.a, and
# pkg-config has no static-only Libs, so a program that wants libflowcut.a
# with the system libraries shared uses flowcut-static.pc, whose Libs name
# the archive itself.
set(FLOWCUT_PC_PRIVATE "-lstb -lm -lpthread")
if(FLOWCUT_HAVE_CUDA)
  string(APPEND FLOWCUT_PC_PRIVATE " -L${CUDAToolkit_LIBRARY_DIR} -lcudart_static -ldl -lrt -lstdc++")
endif()
# relocatable: the prefix is found from the .pc file's own folder
file(RELATIVE_PATH FLOWCUT_PC_UP /p/${CMAKE_INSTALL_LIBDIR}/pkgconfig /p)
configure_file(${CMAKE_SOURCE_DIR}/cmake/flowcut.pc.in ${CMAKE_BINARY_DIR}/flowcut.pc @ONLY)
configure_file(${CMAKE_SOURCE_DIR}/cmake/flowcut-static.pc.in ${CMAKE_BINARY_DIR}/flowcut-static.pc @ONLY)
install(FILES ${CMAKE_BINARY_DIR}/flowcut.pc ${CMAKE_BINARY_DIR}/flowcut-static.pc
  DESTINATION ${CMAKE_INSTALL_LIBDIR}/pkgconfig)

# Python module, installed for one interpreter: FLOWCUT_PYTHON, by default
# Debian's /usr/bin/python3 (not the first python3 on PATH, which may be a
# pyenv or venv interpreter without numpy). The folder is the one of that
# interpreter's site folders (site.getsitepackages(), then the user site)
# that lies under the install prefix: /usr -> lib/python3/dist-packages,
# /usr/local -> lib/python3.X/dist-packages, ~/.local -> the user site
# lib/python3.X/site-packages. Another prefix gets the posix_prefix scheme's
# folder, which needs PYTHONPATH (said at configure time).
# FLOWCUT_PYTHON_INSTALL_DIR (relative to the prefix) overrides the choice.
if(EXISTS /usr/bin/python3)
  set(_py_default /usr/bin/python3)
else()
  find_program(_py_default NAMES python3)
endif()
set(FLOWCUT_PYTHON "${_py_default}" CACHE FILEPATH
  "Python interpreter the flowcut module is installed for (default: /usr/bin/python3)")
set(FLOWCUT_PYTHON_INSTALL_DIR "" CACHE STRING
  "Where the Python module is installed, relative to the prefix (empty: FLOWCUT_PYTHON's site folder)")
unset(FLOWCUT_PYTHON_DIR CACHE) # the former name, computed from the first python3 on PATH
set(FLOWCUT_PYTHON_DIR "")
if(FLOWCUT_PYTHON)
  execute_process(COMMAND ${FLOWCUT_PYTHON} -c [=[
import os, site, sys, sysconfig
prefix = os.path.realpath(sys.argv[1])
dirs = list(site.getsitepackages()) if hasattr(site, "getsitepackages") else []
if site.ENABLE_USER_SITE:
    dirs.append(site.getusersitepackages())
for d in dirs:
    rel = os.path.relpath(os.path.realpath(d), prefix)
    if rel.split(os.sep)[0] in ("lib", "lib64"):
        print(rel + "|ON", end="")
        break
else:
    path = sysconfig.get_path("purelib", "posix_prefix", {"base": prefix, "platbase": prefix})
    print(os.path.relpath(path, prefix) + "|OFF", end="")
]=] ${CMAKE_INSTALL_PREFIX}
    RESULT_VARIABLE _py_rc OUTPUT_VARIABLE _py_out ERROR_VARIABLE _py_err)
  if(_py_rc EQUAL 0)
    string(REPLACE "|" ";" _py_out "${_py_out}")
    list(GET _py_out 0 FLOWCUT_PYTHON_DIR)
    list(GET _py_out 1 _py_on_path)
  else()
    message(WARNING "flowcut: ${FLOWCUT_PYTHON} failed (${_py_err}); the Python module is not installed")
  endif()
endif()
if(FLOWCUT_PYTHON_INSTALL_DIR)
  set(FLOWCUT_PYTHON_DIR ${FLOWCUT_PYTHON_INSTALL_DIR})
  set(_py_on_path OFF)
endif()
if(NOT FLOWCUT_PYTHON_DIR)
  message(STATUS "flowcut: Python module not installed (no python3; -DFLOWCUT_PYTHON=/path/to/python3)")
elseif(_py_on_path)
  message(STATUS "flowcut: Python module -> ${CMAKE_INSTALL_PREFIX}/${FLOWCUT_PYTHON_DIR} (on ${FLOWCUT_PYTHON}'s path)")
else()
  message(STATUS "flowcut: Python module -> ${CMAKE_INSTALL_PREFIX}/${FLOWCUT_PYTHON_DIR}: "
    "not on ${FLOWCUT_PYTHON}'s path; use PYTHONPATH=${CMAKE_INSTALL_PREFIX}/${FLOWCUT_PYTHON_DIR}")
endif()
if(FLOWCUT_PYTHON_DIR)
  # the module finds libflowcut.so.0 relative to itself once installed, and
  # in the build tree through the path written here
  file(RELATIVE_PATH FLOWCUT_PY_LIBREL /p/${FLOWCUT_PYTHON_DIR}/flowcut /p/${CMAKE_INSTALL_LIBDIR})
  set(FLOWCUT_PY_LIBRARY "${FLOWCUT_PY_LIBREL}/libflowcut.so.${PROJECT_VERSION_MAJOR}")
  set(FLOWCUT_PY_RELATIVE True)
  configure_file(${CMAKE_SOURCE_DIR}/segment/python/flowcut/_where.py.in
    ${CMAKE_BINARY_DIR}/python-install/_where.py @ONLY)
  set(FLOWCUT_PY_LIBRARY "$<TARGET_FILE:flowcut_shared>")
  set(FLOWCUT_PY_RELATIVE False)
  configure_file(${CMAKE_SOURCE_DIR}/segment/python/flowcut/_where.py.in
    ${CMAKE_BINARY_DIR}/python/_where.py.in @ONLY)
  file(GENERATE OUTPUT ${CMAKE_BINARY_DIR}/python/flowcut/_where.py
    INPUT ${CMAKE_BINARY_DIR}/python/_where.py.in)
  file(GLOB FLOWCUT_PY_SOURCES CONFIGURE_DEPENDS ${CMAKE_SOURCE_DIR}/segment/python/flowcut/*.py)
  # the build tree's copy, importable with PYTHONPATH=build/python
  add_custom_target(flowcut_python ALL
    COMMAND ${CMAKE_COMMAND} -E copy_if_different ${FLOWCUT_PY_SOURCES} ${CMAKE_BINARY_DIR}/python/flowcut/
    DEPENDS ${FLOWCUT_PY_SOURCES} flowcut_shared)
  install(FILES ${FLOWCUT_PY_SOURCES} ${CMAKE_BINARY_DIR}/python-install/_where.py
    DESTINATION ${FLOWCUT_PYTHON_DIR}/flowcut)
endif()
