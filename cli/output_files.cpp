// Output files checked against inputs, locked, and written in place when
// special (output_files.hpp).
#include "cli/output_files.hpp"

#include <fcntl.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>

#include "cli/commands.hpp"

namespace locksim::cli {

bool same_file(const std::string& output, const std::string& input) {
  struct stat in {}, out {};
  if (input.empty() || output.empty() || ::stat(input.c_str(), &in) != 0) return false;
  if (::stat(output.c_str(), &out) != 0) return false;  // not there yet: a new file is no input
  return in.st_dev == out.st_dev && in.st_ino == out.st_ino;
}

void refuse_output_over_input(const std::string& command, const std::string& option, const std::string& output,
                              const std::vector<std::string>& inputs) {
  for (const auto& input : inputs)
    if (same_file(output, input))
      throw InputError(command + ": " + option + " " + output + ": is the input " + input +
                       "; writing it would overwrite it (name another file)");
}

bool is_special_file(const std::string& path) {
  struct stat st {};
  return ::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode) && !S_ISDIR(st.st_mode);
}

OutputLock::OutputLock(const std::string& command, const std::string& option, const std::string& path) {
  if (path.empty() || path == "-" || is_special_file(path)) return;
  // O_NONBLOCK: a FIFO put there since the check must not block the open.
  fd_ = ::open(path.c_str(), O_WRONLY | O_CREAT | O_NONBLOCK | O_CLOEXEC, 0666);
  if (fd_ < 0) throw InputError(path + ": cannot write");
  struct stat st {};
  if (::fstat(fd_, &st) != 0 || !S_ISREG(st.st_mode)) {
    ::close(fd_);
    fd_ = -1;
    return;
  }
  int r = 0;
  while ((r = ::flock(fd_, LOCK_EX | LOCK_NB)) != 0 && errno == EINTR) {
  }
  if (r != 0) {
    const bool held = errno == EWOULDBLOCK;
    ::close(fd_);
    fd_ = -1;
    if (held)
      throw InputError(command + ": " + option + " " + path +
                       ": another locksim command is writing this file (a sweep or check with the same " + option +
                       "); wait for it to end or name another file");
    // A filesystem without flock (some network mounts): written unlocked, as before.
  }
}

OutputLock::~OutputLock() {
  if (fd_ >= 0) ::close(fd_);  // closing the last descriptor of the open file releases the lock
}

}  // namespace locksim::cli
