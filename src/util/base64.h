// RFC 4648 base64 (standard alphabet, '=' padding), for text that must cross a channel whose
// quoting rules are unknown (RunPod's start command: providers/runpod/runpod_ssh.h) and for the
// emulator that reads it back.
#pragma once

#include <optional>
#include <string>

namespace burst {

std::string base64_encode(const std::string& bytes);
// nullopt unless `text` is whole base64 (length a multiple of 4, padding only at the end).
std::optional<std::string> base64_decode(const std::string& text);

}  // namespace burst
