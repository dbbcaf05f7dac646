#include "server/access.h"

#include <fmt/format.h>

namespace indelible::server {

std::optional<Status> CheckAccess(const Access& access, const auth::Principal& principal,
                                  const std::vector<std::string>& params) {
  const auth::Grants& grants = principal.grants;
  const std::string_view right = auth::RightName(access.right);
  const auto denied = [&](std::string what) {
    if (!access.why.empty()) what += "; " + access.why;
    return Status::Unauthorized(
        fmt::format("{} lacks the {} right here: {}", principal.name, right, what));
  };
  switch (access.scope) {
    case Access::Scope::kOpen:
    case Access::Scope::kAuthenticated:
      return std::nullopt;
    case Access::Scope::kStream:
    case Access::Scope::kGroup: {
      const std::string& name = params.empty() ? std::string() : params.front();
      if (grants.Allows(access.right, name)) return std::nullopt;
      const char* kind = access.scope == Access::Scope::kStream ? "stream" : "consumer group";
      if (!name.empty() && name.front() == '$')
        return denied(fmt::format("{} '{}' is reserved ('$' names are the admin role's)", kind,
                                  name.substr(0, 256)));
      return denied(fmt::format("no rule of its roles covers {} '{}'", kind, name.substr(0, 256)));
    }
    case Access::Scope::kEverywhere:
      if (grants.AllowsEverywhere(access.right)) return std::nullopt;
      return denied("this needs the right on every stream");
    case Access::Scope::kSomewhere:
      if (grants.AllowsSomewhere(access.right)) return std::nullopt;
      return denied("no rule of its roles grants it");
    case Access::Scope::kPrefix:
      if (access.prefix.empty() ? grants.AllowsEverywhere(access.right)
                                : grants.AllowsAllUnder(access.right, access.prefix))
        return std::nullopt;
      return denied(access.prefix.empty()
                        ? std::string("this route touches any stream")
                        : fmt::format("this route touches the streams under '{}'", access.prefix));
    case Access::Scope::kAdmin:
      if (grants.admin()) return std::nullopt;
      return Status::Unauthorized(
          fmt::format("{} may not do this: only the admin role may ({})", principal.name,
                      access.why.empty() ? std::string("an act on the whole store") : access.why));
  }
  return denied("unknown scope");
}

}  // namespace indelible::server
