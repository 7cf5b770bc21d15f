// Image reference normalisation (image/image_ref.h).
#include "image/image_ref.h"

#include <cctype>

namespace burst {
namespace {

constexpr size_t kImageRefMaxLength = 512;  // far above any real reference
constexpr std::string_view kDockerHubRegistry = "registry-1.docker.io";

bool imgref_lower_alnum(char c) { return (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'); }

// One path component: [a-z0-9]+((\.|_|__|-+)[a-z0-9]+)*
bool imgref_component_ok(std::string_view s) {
  if (s.empty() || !imgref_lower_alnum(s.front()) || !imgref_lower_alnum(s.back())) return false;
  for (size_t i = 0; i < s.size(); ++i) {
    const char c = s[i];
    if (imgref_lower_alnum(c)) continue;
    if (c == '.' || c == '_' || c == '-') {
      // A separator: '.', '_', "__" or a run of '-', always between two alphanumerics.
      size_t j = i;
      while (j + 1 < s.size() && s[j + 1] == c) ++j;
      const size_t run = j - i + 1;
      if ((c == '.' && run > 1) || (c == '_' && run > 2)) return false;
      i = j;
      continue;
    }
    return false;
  }
  return true;
}

bool imgref_tag_ok(std::string_view t) {
  if (t.empty() || t.size() > 128) return false;
  auto word = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  if (!word(t.front())) return false;
  for (char c : t)
    if (!word(c) && c != '.' && c != '-') return false;
  return true;
}

// sha256:<64 lower hex> (the only algorithm registries must support), or another
// algorithm:<hex> of at least 32 characters.
bool imgref_digest_ok(std::string_view d) {
  const size_t colon = d.find(':');
  if (colon == std::string_view::npos || colon == 0) return false;
  std::string_view algo = d.substr(0, colon), hex = d.substr(colon + 1);
  for (char c : algo)
    if (!imgref_lower_alnum(c) && c != '+' && c != '.' && c != '_' && c != '-') return false;
  if (algo == "sha256" && hex.size() != 64) return false;
  if (hex.size() < 32) return false;
  for (char c : hex)
    if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
  return true;
}

bool imgref_host_ok(std::string_view h) {
  if (h.empty() || h.size() > 255) return false;
  for (char c : h)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '.' && c != '-' && c != ':' &&
        c != '[' && c != ']')
      return false;
  return true;
}

Error imgref_bad(std::string_view text, const std::string& why) {
  return make_error(ErrorCode::kInvalid,
                    "image \"" + std::string(text.substr(0, 80)) + "\": " + why);
}

}  // namespace

std::string ImageRef::canonical() const {
  const bool digest = reference.find(':') != std::string::npos;
  return registry + "/" + repository + (digest ? "@" : ":") + reference;
}

Result<ImageRef> parse_image_ref(std::string_view text) {
  if (text.empty()) return imgref_bad(text, "empty reference");
  if (text.size() > kImageRefMaxLength) return imgref_bad(text, "reference too long");
  std::string_view rest = text;
  ImageRef out;
  // A digest ends the reference; a tag before it is informational only.
  if (size_t at = rest.find('@'); at != std::string_view::npos) {
    std::string_view digest = rest.substr(at + 1);
    if (!imgref_digest_ok(digest)) return imgref_bad(text, "bad digest (want sha256:<64 hex>)");
    out.reference = std::string(digest);
    rest = rest.substr(0, at);
  }
  // The registry: a first component with '.' or ':' or "localhost".
  if (size_t slash = rest.find('/'); slash != std::string_view::npos) {
    std::string_view first = rest.substr(0, slash);
    if (first.find('.') != std::string_view::npos || first.find(':') != std::string_view::npos ||
        first == "localhost") {
      if (!imgref_host_ok(first)) return imgref_bad(text, "bad registry host");
      out.registry = std::string(first);
      rest = rest.substr(slash + 1);
    }
  }
  if (out.registry.empty() || out.registry == "docker.io" || out.registry == "index.docker.io")
    out.registry = std::string(kDockerHubRegistry);
  // The tag: after the last ':' of the path's last component.
  const size_t last_slash = rest.rfind('/');
  const size_t colon = rest.rfind(':');
  if (colon != std::string_view::npos &&
      (last_slash == std::string_view::npos || colon > last_slash)) {
    std::string_view tag = rest.substr(colon + 1);
    if (!imgref_tag_ok(tag)) return imgref_bad(text, "bad tag");
    if (out.reference.empty()) out.reference = std::string(tag);
    rest = rest.substr(0, colon);
  }
  if (out.reference.empty()) out.reference = "latest";
  if (rest.empty()) return imgref_bad(text, "no repository name");
  size_t start = 0;
  while (start <= rest.size()) {
    size_t end = rest.find('/', start);
    if (end == std::string_view::npos) end = rest.size();
    if (!imgref_component_ok(rest.substr(start, end - start)))
      return imgref_bad(text, "bad repository name (lower-case letters, digits, . _ -)");
    start = end + 1;
  }
  out.repository = std::string(rest);
  if (out.registry == kDockerHubRegistry && out.repository.find('/') == std::string::npos)
    out.repository = "library/" + out.repository;
  return out;
}

}  // namespace burst
