// A small tar writer and reader for streaming files through one SSH channel. The writer emits
// ustar headers and adds a pax extended header when a name or link target is too long or not
// ASCII, or a file is 8 GiB or more; GNU tar and bsdtar both read it. The reader understands
// what `tar -c` on the pod writes: ustar, pax ('x', 'g') and GNU long names ('L', 'K').
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "burst/result.h"

namespace burst {

struct TarEntry {
  std::string name;  // relative, '/'-separated
  char type = '0';   // '0' file, '2' symlink, '5' directory
  uint32_t mode = 0644;
  int64_t mtime = 0;
  uint64_t size = 0;  // files only
  std::string link;   // symlink target
};

class TarWriter {
 public:
  using Sink = std::function<Status(const char* data, size_t len)>;
  explicit TarWriter(Sink out) : out_(std::move(out)) {}

  // Starts an entry; a file's `size` bytes of content follow through data().
  Status begin(const TarEntry& e);
  Status data(const char* p, size_t len);
  // Ends the current entry: pads a short file with zeros and aligns to 512 bytes.
  Status end_entry();
  // Writes the end-of-archive blocks and flushes.
  Status finish();
  uint64_t bytes_out() const { return total_; }

 private:
  Status put(const char* p, size_t len);
  Status flush();
  Status header(const std::string& name, char type, uint32_t mode, int64_t mtime, uint64_t size,
                const std::string& link);

  Sink out_;
  std::vector<char> buf_;
  uint64_t left_ = 0;  // content bytes still owed by the current entry
  uint64_t written_ = 0;
  uint64_t total_ = 0;
};

class TarReader {
 public:
  // Reads up to len bytes; 0 at the end of the stream.
  using Source = std::function<Result<size_t>(char* data, size_t len)>;
  explicit TarReader(Source in) : in_(std::move(in)), buf_(256 * 1024) {}

  // The next entry, or nullopt at the end of the archive.
  Result<std::optional<TarEntry>> next();
  // The current entry's content, up to len bytes at a time; 0 at its end.
  Result<size_t> read(char* p, size_t len);
  // Bytes read from the source but not consumed yet (after the archive's end: what follows it).
  std::string take_buffered();

 private:
  Result<size_t> take(char* p, size_t len);  // exactly len unless the stream ends
  Status skip(uint64_t n);

  Source in_;
  std::vector<char> buf_;
  size_t pos_ = 0, end_ = 0;
  uint64_t left_ = 0, pad_ = 0;
};

}  // namespace burst
