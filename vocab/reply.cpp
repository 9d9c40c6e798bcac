// Rendering of replies for traces and test messages.
#include "vocab/reply.hpp"

namespace locksim {

std::string Reply::to_string() const {
  switch (type) {
    case Type::Nil: return "(nil)";
    case Type::Status: return str;
    case Type::Integer: return "(integer) " + std::to_string(integer);
    case Type::Bulk: return "\"" + str + "\"";
    case Type::Error: return "(error) " + str;
    case Type::Array: {
      std::string out = "[";
      for (std::size_t i = 0; i < elements.size(); ++i) {
        if (i) out += ", ";
        out += elements[i].to_string();
      }
      return out + "]";
    }
  }
  return "?";
}

}  // namespace locksim
