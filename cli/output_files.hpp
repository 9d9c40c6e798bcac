// Files a command writes, kept from harming what the user already has
// (issue 35): an output option that names one of the command's inputs is
// refused before anything is written (`run F --timeline F` used to
// overwrite the scenario with its own timeline); an output file written
// line by line (`sweep --out`, `check --out`) is locked for the whole
// command, so a second writer is refused instead of both saying "1500 runs
// written" with one's lines lost; and a path that is not a regular file (a
// device, a FIFO) is written in place, never replaced by a renamed file.
#pragma once

#include <string>
#include <vector>

namespace locksim::cli {

// Whether writing `output` would write the file `input` names: the same
// device and inode (a symlink or hard link, `./F` for `F`). An input that
// does not exist was not read from disk (a catalog name): it names no file.
bool same_file(const std::string& output, const std::string& input);

// Throws InputError "run: --timeline F: is the input F; writing it would
// overwrite it (name another file)" when `output` is the same file as one
// of `inputs` (those that are not files are skipped).
void refuse_output_over_input(const std::string& command, const std::string& option, const std::string& output,
                              const std::vector<std::string>& inputs);

// An exclusive lock (flock(2)) on an output file while a command writes it.
// Taken before the file is read (--resume) or truncated, so a second sweep
// or check on the same --out is refused, with the file as the first one
// left it. A path that is not a regular file (a FIFO, /dev/null, stdout's
// "-") is not locked: there is nothing in it to lose.
class OutputLock {
 public:
  // Throws InputError "sweep: --out F: another locksim command is writing
  // this file (a sweep or check with the same --out); wait for it to end or
  // name another file". Creates the file when it does not exist.
  OutputLock(const std::string& command, const std::string& option, const std::string& path);
  ~OutputLock();
  OutputLock(const OutputLock&) = delete;
  OutputLock& operator=(const OutputLock&) = delete;

 private:
  int fd_ = -1;
};

// Whether `path` exists and is neither a regular file nor a directory (a
// character or block device, a FIFO, a socket), following symlinks: such a
// path is written in place, never renamed over.
bool is_special_file(const std::string& path);

}  // namespace locksim::cli
