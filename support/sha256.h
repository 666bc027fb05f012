// SHA-256 of bytes and files (OpenSSL EVP). Used for certificate input hashes,
// rules-file hashes and the SMT query cache key.
#pragma once
#include <string>
#include <string_view>

namespace fusecert::support {

/// Lower-case hex SHA-256 digest (64 chars) of `data`.
std::string sha256_hex(std::string_view data);

}  // namespace fusecert::support
