# Debian package: `cpack -G DEB` in a build folder makes
# flowcut_<version>_<arch>.deb with everything `cmake --install` installs
# (binary, libflowcut.so.0 and .a, headers, pkg-config and CMake files, the
# Python module). Configure with -DCMAKE_INSTALL_PREFIX=/usr for the
# Debian layout (multiarch lib folder, lib/python3/dist-packages); another
# prefix's relative folders are kept under /usr, which Debian's tools and
# python3 also search.
set(CPACK_PACKAGE_NAME flowcut)
set(CPACK_PACKAGE_VERSION ${PROJECT_VERSION})
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "graph-cut segmentation and max-flow on CPU and GPU")
set(CPACK_PACKAGE_DESCRIPTION "flowcut segments photos and volumes from seeds with graph cuts,
on the CPU or a CUDA GPU. This package holds the flowcut command, libflowcut
(shared and static, headers, pkg-config and CMake files), the Python module
flowcut and the manual page.")
set(FLOWCUT_PACKAGE_CONTACT "flowcut maintainers <flowcut@localhost>" CACHE STRING
  "Maintainer field of the Debian package")
set(CPACK_PACKAGE_CONTACT "${FLOWCUT_PACKAGE_CONTACT}")
set(CPACK_PACKAGING_INSTALL_PREFIX /usr) # Debian packages never install into /usr/local
set(CPACK_DEBIAN_FILE_NAME DEB-DEFAULT)  # flowcut_0.1.0_amd64.deb
set(CPACK_DEBIAN_PACKAGE_SECTION science)
# Depends from the ELF files' needs (libc6, libpng16-16, libjpeg62-turbo,
# libstb0) where dpkg-shlibdeps is there to compute them
find_program(FLOWCUT_DPKG_SHLIBDEPS dpkg-shlibdeps)
mark_as_advanced(FLOWCUT_DPKG_SHLIBDEPS)
set(_deb_depends "")
if(FLOWCUT_DPKG_SHLIBDEPS)
  set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
else()
  message(STATUS "flowcut: no dpkg-shlibdeps (Debian: dpkg-dev); the package's Depends are written by hand")
  list(APPEND _deb_depends libc6 libpng16-16 libjpeg62-turbo libstb0)
endif()
# flowcut ui loads libmicrohttpd with dlopen, which dpkg-shlibdeps cannot see
if(FLOWCUT_HAVE_UI)
  list(APPEND _deb_depends libmicrohttpd12)
endif()
list(JOIN _deb_depends ", " CPACK_DEBIAN_PACKAGE_DEPENDS)
# the module needs numpy; the command and the library do not
set(CPACK_DEBIAN_PACKAGE_RECOMMENDS "python3, python3-numpy")
# what a C program linking libflowcut needs
set(CPACK_DEBIAN_PACKAGE_SUGGESTS "libpng-dev, libjpeg62-turbo-dev, libstb-dev, pkgconf")
# the shlibs file, so that packages built against it depend on it
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS ON)
set(CPACK_DEBIAN_PACKAGE_GENERATE_SHLIBS_POLICY ">=")
# no debugging symbols in the package (lintian: unstripped-binary-or-object)
set(CPACK_STRIP_FILES ON)
# the dynamic linker's cache through dpkg's trigger, and the module's
# byte-code caches (written by python3 at the first import) gone on removal
set(CPACK_DEBIAN_PACKAGE_CONTROL_EXTRA ${CMAKE_SOURCE_DIR}/cmake/deb/triggers ${CMAKE_SOURCE_DIR}/cmake/deb/prerm)
set(CPACK_DEBIAN_PACKAGE_CONTROL_STRICT_PERMISSION ON)
set(CPACK_GENERATOR DEB)
include(CPack)
