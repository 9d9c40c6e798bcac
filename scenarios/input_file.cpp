// User-named input files: regular files under a size cap (input_file.hpp).
#include "scenarios/input_file.hpp"

#include <filesystem>
#include <fstream>
#include <sstream>

namespace locksim::scenarios {

namespace fs = std::filesystem;

std::optional<std::string> input_file_problem(const std::string& path, std::uintmax_t cap) {
  std::error_code ec;
  const fs::file_status st = fs::status(path, ec);  // follows symlinks: the target counts
  if (!fs::exists(st)) return "no such file";
  if (fs::is_directory(st)) return "is a directory, not a file";
  if (!fs::is_regular_file(st)) return "is not a regular file (a device, FIFO or socket); give a regular file";
  const std::uintmax_t size = fs::file_size(path, ec);
  if (ec) return "cannot read the file";
  if (size > cap)
    return "is " + std::to_string(size) + " bytes, over the cap of " + std::to_string(cap) + " bytes (" +
           std::to_string(cap >> 20) + " MiB) for an input file";
  return std::nullopt;
}

Result<std::string, std::string> read_input_file(const std::string& path, std::uintmax_t cap) {
  if (auto problem = input_file_problem(path, cap)) return failure(*problem);
  std::ifstream in(path, std::ios::binary);
  std::stringstream buf;
  if (in) buf << in.rdbuf();
  if (!in || in.bad()) return failure(std::string("cannot read the file"));
  std::string text = buf.str();
  if (text.size() > cap) return failure("grew over the cap of " + std::to_string(cap) + " bytes while being read");
  return text;
}

}  // namespace locksim::scenarios
