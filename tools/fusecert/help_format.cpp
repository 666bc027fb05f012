#include "tools/fusecert/help_format.h"

#include <sstream>

namespace fusecert::cli {

namespace {

class Formatter : public CLI::Formatter {
 public:
  std::string make_usage(const CLI::App* app, std::string name) const override {
    std::ostringstream out;
    out << get_label("Usage") << ":" << (name.empty() ? "" : " ") << name;
    if (!app->get_options([](const CLI::Option* o) { return o->nonpositional(); }).empty())
      out << " [" << get_label("OPTIONS") << "]";
    for (const CLI::Option* o : app->get_options([](const CLI::Option* o) { return o->get_positional(); }))
      if (!o->get_group().empty()) out << " " << make_option_usage(o);
    if (!app->get_subcommands([](const CLI::App* s) { return !s->get_disabled() && !s->get_name().empty(); })
             .empty()) {
      const bool optional = app->get_require_subcommand_min() == 0;
      out << " " << (optional ? "[" : "") << get_label("SUBCOMMAND") << (optional ? "]" : "");
    }
    out << "\n";
    return out.str();
  }
};

}  // namespace

std::shared_ptr<CLI::Formatter> help_formatter() { return std::make_shared<Formatter>(); }

}  // namespace fusecert::cli
