// A bump allocator for cmark-gfm, one per thread. A parse allocates every
// node, buffer and list cell through the cmark_mem it is given (the table
// extension included), tens of thousands of small blocks per document, and
// frees them one by one when the tree goes: through glibc's malloc that was
// about a tenth of a run's instructions. Through this arena an allocation is
// a pointer bump, a free is nothing, and the whole parse is released at once
// when the outline has been read out of the tree (ParseArena::Scope).
#pragma once
#include <cstddef>

#include <cmark-gfm.h>

namespace fusecert::docaudit {

class ParseArena {
 public:
  /// The calling thread's arena as a cmark_mem (cmark_parser_new_with_mem).
  static cmark_mem* mem();
  /// Releases, when it ends, everything the calling thread allocated through
  /// mem() while it lived. The parser, the tree, iterators and literals must
  /// not outlive it (declare it before them).
  class Scope {
   public:
    Scope();
    ~Scope();
    Scope(const Scope&) = delete;
    Scope& operator=(const Scope&) = delete;
  };
  /// Bytes the calling thread's arena holds from the system now (tests).
  static std::size_t held_bytes();
};

}  // namespace fusecert::docaudit
