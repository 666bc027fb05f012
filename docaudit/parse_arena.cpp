#include "docaudit/parse_arena.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>

namespace fusecert::docaudit {
namespace {

constexpr std::size_t kAlign = alignof(std::max_align_t);
constexpr std::size_t kHeader = kAlign;            // holds the block's size, keeps the payload aligned
constexpr std::size_t kBlockBytes = 256 * 1024;    // one is kept between parses
constexpr std::size_t kOwnBlockOver = kBlockBytes / 4;

[[noreturn]] void out_of_memory() {
  // As cmark's own allocator does: it cannot report a failed allocation.
  std::fputs("fusecert: out of memory while parsing Markdown\n", stderr);
  std::abort();
}

std::size_t round_up(std::size_t n) { return (n + kAlign - 1) & ~(kAlign - 1); }

class Arena {
 public:
  ~Arena() {
    for (Block& b : blocks_) std::free(b.data);
  }

  void* allocate(std::size_t bytes) {
    if (bytes > SIZE_MAX / 2) out_of_memory();
    const std::size_t need = kHeader + round_up(bytes == 0 ? 1 : bytes);
    if (blocks_.empty() || blocks_.back().size - blocks_.back().used < need) add_block(need);
    Block& b = blocks_.back();
    char* at = b.data + b.used;
    b.used += need;
    std::memcpy(at, &bytes, sizeof bytes);
    last_ = at + kHeader;
    return last_;
  }

  void* calloc(std::size_t n, std::size_t size) {
    if (size != 0 && n > SIZE_MAX / size) out_of_memory();
    void* p = allocate(n * size);
    std::memset(p, 0, n * size);
    return p;
  }

  void* realloc(void* p, std::size_t bytes) {
    if (!p) return allocate(bytes);
    std::size_t old = 0;
    std::memcpy(&old, static_cast<char*>(p) - kHeader, sizeof old);
    if (p == last_ && bytes <= SIZE_MAX / 2) {  // the newest block grows in place when it fits
      Block& b = blocks_.back();
      const std::size_t start = static_cast<std::size_t>(static_cast<char*>(p) - b.data);
      const std::size_t end = start + round_up(bytes == 0 ? 1 : bytes);
      if (end <= b.size) {
        b.used = end;
        std::memcpy(static_cast<char*>(p) - kHeader, &bytes, sizeof bytes);
        return p;
      }
    }
    void* q = allocate(bytes);
    std::memcpy(q, p, old < bytes ? old : bytes);
    return q;
  }

  void free(void* p) {
    if (p && p == last_) {  // the newest block is given back; any other waits for the release
      blocks_.back().used = static_cast<std::size_t>(static_cast<char*>(p) - kHeader - blocks_.back().data);
      last_ = nullptr;
    }
  }

  void release() {
    // Keep one ordinary block for the next parse; give the rest back.
    while (blocks_.size() > 1 || (!blocks_.empty() && blocks_.back().size != kBlockBytes)) {
      std::free(blocks_.back().data);
      blocks_.pop_back();
    }
    if (!blocks_.empty()) blocks_.back().used = 0;
    last_ = nullptr;
  }

  std::size_t held() const {
    std::size_t n = 0;
    for (const Block& b : blocks_) n += b.size;
    return n;
  }

 private:
  struct Block {
    char* data;
    std::size_t size, used;
  };
  /// A new block to bump in: an ordinary one, or one of its own for a large
  /// allocation (the rest of the block before it is left unused).
  void add_block(std::size_t need) {
    const std::size_t size = need > kOwnBlockOver ? need : kBlockBytes;
    char* data = static_cast<char*>(std::malloc(size));
    if (!data) out_of_memory();
    blocks_.push_back(Block{data, size, 0});
  }

  std::vector<Block> blocks_;
  void* last_ = nullptr;
};

thread_local Arena t_arena;

void* arena_calloc(std::size_t n, std::size_t size) { return t_arena.calloc(n, size); }
void* arena_realloc(void* p, std::size_t size) { return t_arena.realloc(p, size); }
void arena_free(void* p) { t_arena.free(p); }

cmark_mem t_mem{arena_calloc, arena_realloc, arena_free};

}  // namespace

cmark_mem* ParseArena::mem() { return &t_mem; }
ParseArena::Scope::Scope() { t_arena.release(); }
ParseArena::Scope::~Scope() { t_arena.release(); }
std::size_t ParseArena::held_bytes() { return t_arena.held(); }

}  // namespace fusecert::docaudit
