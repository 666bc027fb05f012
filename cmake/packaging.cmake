# Install layout and the Debian package (issue #22).
#
#   cmake --install build --prefix P     P/bin/fusecert (+ P/bin/fusecert-kernels where
#                                        built), P/share/fusecert/rules, the man page,
#                                        bash completion, P/share/doc/fusecert/copyright
#   cpack --config build/CPackConfig.cmake   fusecert_<version>_<arch>.deb (component
#                                        `fusecert`: everything but the CUDA runner)
#
# The installed binary reads its rules from <exe>/../share/fusecert/rules
# (support/rules_dir.h), so any prefix works and the build tree can go.
include(GNUInstallDirs)

install(DIRECTORY ${CMAKE_SOURCE_DIR}/rules/ DESTINATION ${CMAKE_INSTALL_DATADIR}/fusecert/rules
        COMPONENT fusecert)
install(FILES ${CMAKE_SOURCE_DIR}/tools/fusecert/completion/fusecert.bash
        DESTINATION ${CMAKE_INSTALL_DATADIR}/bash-completion/completions RENAME fusecert COMPONENT fusecert)
install(FILES ${CMAKE_SOURCE_DIR}/.pre-commit-hooks.yaml ${CMAKE_SOURCE_DIR}/docs/ci/github-actions.yml
              ${CMAKE_SOURCE_DIR}/docs/ci/fusecert-ci.sh
        DESTINATION ${CMAKE_INSTALL_DOCDIR}/examples COMPONENT fusecert)

# Debian policy 12.5: /usr/share/doc/fusecert/copyright, machine-readable
# (DEP-5): fusecert's own terms and the notices of the header-only libraries
# compiled into the binary (CLI11, nlohmann-json).
install(FILES ${CMAKE_SOURCE_DIR}/cmake/copyright DESTINATION ${CMAKE_INSTALL_DOCDIR} COMPONENT fusecert)

# The docs: SARIF helpUri points into them (FUSECERT_DOCS_URL, default the .deb's copy).
install(DIRECTORY ${CMAKE_SOURCE_DIR}/docs/ DESTINATION ${CMAKE_INSTALL_DOCDIR}/docs COMPONENT fusecert
        FILES_MATCHING PATTERN "*.md")

# The man page, generated from `fusecert --help` (and each subcommand's) by help2man.
find_program(FUSECERT_HELP2MAN help2man)
if(FUSECERT_HELP2MAN)
  set(_man ${CMAKE_BINARY_DIR}/man/fusecert.1)
  add_custom_command(OUTPUT ${_man}
    COMMAND sh ${CMAKE_SOURCE_DIR}/tools/fusecert/man/make-man.sh $<TARGET_FILE:fusecert> ${FUSECERT_HELP2MAN} ${_man}
    DEPENDS fusecert ${CMAKE_SOURCE_DIR}/tools/fusecert/man/make-man.sh
    COMMENT "man page fusecert.1 from --help (help2man)" VERBATIM)
  add_custom_target(fusecert_man ALL DEPENDS ${_man})
  install(FILES ${_man} DESTINATION ${CMAKE_INSTALL_MANDIR}/man1 COMPONENT fusecert)
else()
  message(WARNING "help2man not found (scripts/install-deps.sh installs it): no man page is built or installed")
endif()

# Debian package: `apt install ./fusecert_*.deb` pulls the run-time libraries
# (dpkg-shlibdeps reads them off the binary: libz3-4, libmlir-19
# (which brings libllvm19), libyaml-cpp0.7, libre2-9, libcmark-gfm*, libssl3, libedit2, ...), never the -dev
# packages, compilers or test tools.
set(CPACK_GENERATOR DEB)
set(CPACK_PACKAGE_NAME fusecert)
set(CPACK_PACKAGE_VENDOR fusecert)
set(CPACK_PACKAGE_CONTACT "fusecert maintainers <fusecert@localhost>")
set(CPACK_PACKAGE_DESCRIPTION_SUMMARY "static verifier and audit-document checker for optimizer-into-wgrad epilogue fusion")
set(CPACK_PACKAGE_DESCRIPTION "fusecert proves the propositions that make fusing the optimizer step into
the weight-gradient GEMM's epilogue sound (Z3), checks fusion candidates in
MLIR and writes re-checkable legality certificates, validates fusion rewrites,
lints audit documents, and writes SARIF for code scanning. The CUDA kernels
runner (fusecert-kernels) is not in this package: a GPU host builds it from
the source tree (README, GPU kernels).")
set(CPACK_DEBIAN_FUSECERT_DESCRIPTION "${CPACK_PACKAGE_DESCRIPTION_SUMMARY}\n${CPACK_PACKAGE_DESCRIPTION}")
set(CPACK_PACKAGE_INSTALL_DIRECTORY fusecert)
set(CPACK_PACKAGING_INSTALL_PREFIX /usr)
set(CPACK_DEB_COMPONENT_INSTALL ON)
set(CPACK_COMPONENTS_ALL fusecert)
set(CPACK_COMPONENTS_GROUPING ONE_PER_GROUP)
set(CPACK_DEBIAN_FUSECERT_PACKAGE_NAME fusecert)
set(CPACK_DEBIAN_FUSECERT_FILE_NAME DEB-DEFAULT)
set(CPACK_DEBIAN_PACKAGE_SECTION devel)
set(CPACK_DEBIAN_PACKAGE_SHLIBDEPS ON)
set(CPACK_STRIP_FILES ON)  # the debug info stays in the build tree
# Beyond the linked libraries (apt installs Recommends by default): cvc5 for
# `check-cert --solver cvc5`, git for `fusecert hook`; pre-commit for
# .pre-commit-hooks.yaml.
set(CPACK_DEBIAN_FUSECERT_PACKAGE_RECOMMENDS "cvc5, git")
set(CPACK_DEBIAN_FUSECERT_PACKAGE_SUGGESTS "pre-commit, bash-completion")
include(CPack)
