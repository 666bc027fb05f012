# Tests that read ../shared/corpus, the shared corpus beside the checkout
# (not in it). Each such test exits 77 with a "SKIP: <why>" line when what it
# reads is absent, and CTest reports it Skipped, never Passed. CTest prints a
# skipped test's output only with -V, so configuring says now which tests
# will be skipped and why. With FUSECERT_REQUIRE_CORPUS=ON (a CI whose
# checkout has the corpus beside it) a missing corpus fails those tests.
set(FUSECERT_CORPUS ${CMAKE_SOURCE_DIR}/../shared/corpus CACHE PATH "the shared corpus folder (../shared/corpus)")
option(FUSECERT_REQUIRE_CORPUS "fail, not skip, a test whose part of ../shared/corpus is absent" OFF)

# fusecert_corpus_test(TEST NEEDS): TEST reads the path NEEDS of the corpus.
function(fusecert_corpus_test test needs)
  if(NOT FUSECERT_REQUIRE_CORPUS)
    set_tests_properties(${test} PROPERTIES SKIP_RETURN_CODE 77)
  endif()
  if(NOT EXISTS "${needs}")
    if(FUSECERT_REQUIRE_CORPUS)
      message(WARNING "${test}: ${needs} is absent, and FUSECERT_REQUIRE_CORPUS is ON: the test will fail")
    else()
      message(STATUS "${test}: ${needs} is absent; CTest will report the test Skipped (`ctest -V -R ${test}` prints why)")
    endif()
  endif()
endfunction()
