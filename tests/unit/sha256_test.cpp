// SHA-256 (libcrypto, loaded on first use) must print what `sha256sum` prints. Vectors from
// FIPS 180-4's examples.
#include "crypto/sha256.h"

#include <gtest/gtest.h>

namespace burst {
namespace {

struct Vector {
  std::string input;
  const char* digest;
};

std::vector<Vector> vectors() {
  return {
      {"", "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"},
      {"abc", "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"},
      {"abcdbcdecdefdefgefghfghighijhijkijkljklmklmnlmnomnopnopq",
       "248d6a61d20638b8e5c026930c3e6039a33ce45964ff2167f6ecedd419db06c1"},
      // Crosses the 55/56-byte padding boundary and several blocks.
      {std::string(1000000, 'a'),
       "cdc76e5c9914fb9281a1c7e284d73e67f1809a48a497200e046d39ccc7112cd0"},
  };
}

TEST(Sha256, LibcryptoPathMatchesTheStandardVectors) {
  for (const Vector& v : vectors()) EXPECT_EQ(sha256_hex(v.input), v.digest) << v.input.size();
}

TEST(Sha256, StreamedUpdatesEqualOneShot) {
  Sha256 h;
  const std::string data(100000, 'q');
  for (size_t i = 0; i < data.size(); i += 777)
    h.update(data.data() + i, std::min<size_t>(777, data.size() - i));
  EXPECT_EQ(h.hex_digest(), sha256_hex(data));
  // The object starts over after a digest.
  h.update("abc", 3);
  EXPECT_EQ(h.hex_digest(), "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

}  // namespace
}  // namespace burst
