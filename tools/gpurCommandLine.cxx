// SPDX-License-Identifier: Apache-2.0
#include "gpurCommandLine.h"

#include "gpurText.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <sstream>
#include <utility>

namespace gpur
{
namespace cli
{

namespace
{

std::string
Join(const std::vector<std::string> & items, const std::string & separator)
{
  std::string out;
  for (std::size_t i = 0; i < items.size(); ++i)
    out += (i ? separator : "") + items[i];
  return out;
}

/** A finite number for which accept(x) holds; otherwise "<option> needs <what>, got '<value>'". */
template<typename Accept>
double
ParseFiniteIf(const std::string & option, const std::string & value, Accept accept, const char * what)
{
  std::size_t used = 0;
  double x = 0.0;
  try
  {
    x = std::stod(value, &used);
  }
  catch (const std::exception &)
  {
    used = 0;
  }
  if (value.empty() || used != value.size() || !std::isfinite(x) || !accept(x))
    throw UsageError(option + " needs " + what + ", got '" + value + "'");
  return x;
}

} // namespace

double
ParseDouble(const std::string & option, const std::string & value)
{
  return ParseFiniteIf(
    option, value, [](double) { return true; }, "a finite number");
}

double
ParsePositiveDouble(const std::string & option, const std::string & value)
{
  return ParseFiniteIf(
    option, value, [](double x) { return x > 0.0; }, "a positive finite number");
}

double
ParseNonNegativeDouble(const std::string & option, const std::string & value)
{
  return ParseFiniteIf(
    option, value, [](double x) { return x >= 0.0; }, "a finite number >= 0");
}

unsigned long
ParseUnsigned(const std::string & option, const std::string & value, unsigned long minimum, unsigned long maximum)
{
  const std::string range = "[" + std::to_string(minimum) + ", " + std::to_string(maximum) + "]";
  const bool digits =
    !value.empty() && std::all_of(value.begin(), value.end(), [](unsigned char c) { return std::isdigit(c) != 0; });
  unsigned long n = 0;
  bool ok = digits;
  if (digits)
  {
    try
    {
      n = std::stoul(value);
    }
    catch (const std::exception &)
    {
      ok = false; // out of range
    }
  }
  if (!ok || n < minimum || n > maximum)
    throw UsageError(option + " needs an integer in " + range + ", got '" + value + "'");
  return n;
}

std::string
ParseChoice(const std::string & option, const std::string & value, const std::vector<std::string> & choices)
{
  for (const auto & choice : choices)
    if (ToLower(choice) == ToLower(value))
      return choice;
  throw UsageError(option + " must be one of " + Join(choices, ", ") + ", got '" + value + "'");
}

Parser::Parser(std::string program, std::string positionals, std::string summary)
  : m_Program(std::move(program))
  , m_PositionalsText(std::move(positionals))
  , m_Summary(std::move(summary))
{
  Option help;
  help.flag = "--help";
  help.help = "Print this help and exit.";
  help.hidden = true;
  m_Options.push_back(std::move(help)); // handled by Parse() itself
}

Option &
Parser::Add(Option option)
{
  if (option.flag.size() < 3 || option.flag.compare(0, 2, "--") != 0 || Find(option.flag))
    throw std::logic_error("gpur::cli::Parser: bad or duplicate flag '" + option.flag + "'");
  if (option.label.empty())
  {
    option.label = option.flag.substr(2);
    option.label[0] = static_cast<char>(std::toupper(static_cast<unsigned char>(option.label[0])));
  }
  m_Options.push_back(std::move(option));
  return m_Options.back();
}

Option &
Parser::AddSwitch(const std::string & flag, const std::string & help, bool & target)
{
  Option o;
  o.flag = flag;
  o.help = help;
  o.type = ValueType::Switch;
  o.defaultValue = target ? "true" : "false";
  o.parse = [&target](const std::string &) { target = true; };
  return Add(std::move(o));
}

Option &
Parser::AddDouble(const std::string & flag,
                  const std::string & valueName,
                  const std::string & help,
                  double & target,
                  double (*check)(const std::string &, const std::string &))
{
  Option o;
  o.flag = flag;
  o.valueName = valueName;
  o.help = help;
  o.type = ValueType::Double;
  std::ostringstream d;
  d << target;
  o.defaultValue = d.str();
  o.parse = [&target, check, flag](const std::string & value) { target = check(flag, value); };
  return Add(std::move(o));
}

Option &
Parser::AddUnsigned(const std::string & flag,
                    const std::string & valueName,
                    const std::string & help,
                    unsigned & target,
                    unsigned minimum,
                    unsigned maximum)
{
  Option o;
  o.flag = flag;
  o.valueName = valueName;
  o.help = help;
  o.type = ValueType::Integer;
  o.defaultValue = std::to_string(target);
  o.parse = [&target, flag, minimum, maximum](const std::string & value)
  { target = static_cast<unsigned>(ParseUnsigned(flag, value, minimum, maximum)); };
  return Add(std::move(o));
}

Option &
Parser::AddString(const std::string & flag,
                  const std::string & valueName,
                  const std::string & help,
                  std::string & target)
{
  Option o;
  o.flag = flag;
  o.valueName = valueName;
  o.help = help;
  o.type = ValueType::String;
  o.defaultValue = target;
  o.parse = [&target](const std::string & value) { target = value; };
  return Add(std::move(o));
}

Option &
Parser::AddInputImage(const std::string & flag,
                      const std::string & valueName,
                      const std::string & help,
                      std::string & target)
{
  Option & o = AddString(flag, valueName, help, target);
  o.type = ValueType::InputImage;
  return o;
}

Option &
Parser::AddChoice(const std::string & flag,
                  const std::string & help,
                  const std::vector<std::string> & choices,
                  std::string & target)
{
  Option o;
  o.flag = flag;
  o.valueName = Join(choices, "|");
  o.help = help;
  o.type = ValueType::Enumeration;
  o.choices = choices;
  o.defaultValue = target;
  o.parse = [&target, flag, choices](const std::string & value) { target = ParseChoice(flag, value, choices); };
  return Add(std::move(o));
}

const Option *
Parser::Find(const std::string & flag) const
{
  for (const auto & o : m_Options)
    if (o.flag == flag)
      return &o;
  return nullptr;
}

bool
Parser::Parse(int argc,
              const char * const argv[],
              std::ostream & out,
              std::size_t minPositionals,
              std::size_t maxPositionals)
{
  m_Positionals.clear();
  bool optionsEnded = false;
  for (int i = 1; i < argc; ++i)
  {
    const std::string arg = argv[i];
    if (optionsEnded || arg.size() < 2 || arg[0] != '-' || arg == "-")
    {
      m_Positionals.push_back(arg);
      continue;
    }
    if (arg == "--")
    {
      optionsEnded = true;
      continue;
    }
    if (arg == "-h" || arg == "--help")
    {
      PrintHelp(out);
      return false;
    }
    const std::size_t equals = arg.find('=');
    const std::string flag = arg.substr(0, equals);
    const Option * option = Find(flag);
    if (!option || !option->parse)
      throw UsageError("unknown option '" + flag + "' (see --help)");
    if (option->type == ValueType::Switch)
    {
      if (equals != std::string::npos)
        throw UsageError(flag + " takes no value");
      option->parse("");
      continue;
    }
    std::string value;
    if (equals != std::string::npos)
      value = arg.substr(equals + 1);
    else if (i + 1 < argc)
      value = argv[++i];
    else
      throw UsageError(flag + " needs a value (" + option->valueName + ")");
    option->parse(value);
  }
  if (m_Positionals.size() < minPositionals || m_Positionals.size() > maxPositionals)
  {
    std::ostringstream s;
    if (maxPositionals == 0)
      throw UsageError("unexpected argument '" + m_Positionals.front() + "' (see --help)");
    s << "expected " << m_PositionalsText << ", got " << m_Positionals.size() << " argument"
      << (m_Positionals.size() == 1 ? "" : "s") << " (see --help)";
    throw UsageError(s.str());
  }
  return true;
}

void
Parser::PrintUsage(std::ostream & os) const
{
  os << "usage: " << m_Program << " [options]" << (m_PositionalsText.empty() ? "" : " ") << m_PositionalsText << "\n";
}

void
Parser::PrintHelp(std::ostream & os) const
{
  PrintUsage(os);
  if (!m_Summary.empty())
    os << "\n" << m_Summary << "\n";
  os << "\noptions:\n";
  for (const auto & o : m_Options)
  {
    std::string left = "  " + o.flag + (o.valueName.empty() ? "" : " " + o.valueName);
    os << left;
    const std::size_t column = 28;
    if (left.size() + 2 > column)
      os << "\n" << std::string(column, ' ');
    else
      os << std::string(column - left.size(), ' ');
    os << o.help;
    if (o.type != ValueType::Switch && !o.defaultValue.empty())
      os << " [default: " << o.defaultValue << "]";
    os << "\n";
  }
}

void
AddToolOptions(Parser & parser, ToolOptions & target, DeviceMemoryLimit memoryLimit)
{
  auto & backend =
    parser.AddChoice("--backend",
                     "Where to run: auto (a GPU if there is one, a device named by --device, else the faster of "
                     "the CPU and a CPU OpenCL driver as measured; the summary says which and why), cpu "
                     "or opencl.",
                     { "auto", "cpu", "opencl" },
                     target.backend);
  backend.label = "Backend";
  backend.group = "Execution";
  auto & device = parser.AddString("--device",
                                   "SELECTION",
                                   "OpenCL device selection, e.g. 'gpu', '0' or a name substring (see "
                                   "itkgpurestoration-devices); empty: $ITKGPUR_DEVICE or the default device.",
                                   target.device);
  device.label = "OpenCL device";
  device.group = "Execution";
  if (memoryLimit == DeviceMemoryLimit::Offered)
  {
    auto & memory = parser.AddUnsigned("--device-memory-limit",
                                       "MiB",
                                       "Device memory the run may use, in MiB; a volume that does not fit streams "
                                       "through host memory in z-regions (same result). 0: 90 % of the device.",
                                       target.deviceMemoryMiB);
    memory.label = "Device memory limit (MiB)";
    memory.group = "Execution";
  }
  parser.AddSwitch("--quiet", "No progress (bar or Slicer lines) and no summary line.", target.quiet).hidden = true;
  parser.AddSwitch("--xml", "Print the 3D Slicer CLI module description (XML) and exit.", target.xml).hidden = true;
}

std::string
XMLEscape(const std::string & text)
{
  std::string out;
  for (const char c : text)
  {
    switch (c)
    {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace
{

const char *
SlicerType(ValueType type)
{
  switch (type)
  {
    case ValueType::Switch:
      return "boolean";
    case ValueType::Double:
      return "double";
    case ValueType::Integer:
      return "integer";
    case ValueType::String:
      return "string";
    case ValueType::Enumeration:
      return "string-enumeration";
    case ValueType::InputImage:
      return "image";
  }
  return "string";
}

} // namespace

void
PrintSlicerXML(const Parser & parser, const SlicerModule & module, std::ostream & os)
{
  os << "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n"
     << "<executable>\n"
     << "  <category>" << XMLEscape(module.category) << "</category>\n"
     << "  <title>" << XMLEscape(module.title) << "</title>\n"
     << "  <description>" << XMLEscape(module.description) << "</description>\n"
     << "  <version>" << GPUR_VERSION
     << "</version>\n"
        "  <documentation-url></documentation-url>\n"
        "  <license>Apache 2.0</license>\n"
        "  <contributor>ITKGPURestoration developers</contributor>\n"
        "  <acknowledgements>Built on the Insight Toolkit (ITK).</acknowledgements>\n";
  const auto groupOf = [&module](const Option & o) -> std::size_t
  {
    if (o.group.empty())
      return 0;
    for (std::size_t g = 0; g < module.groups.size(); ++g)
      if (module.groups[g].first == o.group)
        return g;
    throw std::logic_error("gpur::cli::PrintSlicerXML: option " + o.flag + " names the undeclared group '" + o.group +
                           "'");
  };
  for (std::size_t g = 0; g < module.groups.size(); ++g)
  {
    os << "  <parameters>\n"
       << "    <label>" << XMLEscape(module.groups[g].first) << "</label>\n"
       << "    <description>" << XMLEscape(module.groups[g].second) << "</description>\n";
    for (const auto & o : parser.Options())
    {
      if (o.hidden || groupOf(o) != g)
        continue;
      const char * type = SlicerType(o.type);
      const std::string longflag = o.flag.substr(2);
      // Slicer's <name> is an identifier: "--weight-exponent" -> "weightExponent".
      std::string name;
      for (std::size_t i = 0; i < longflag.size(); ++i)
        name +=
          longflag[i] != '-' ? longflag[i] : static_cast<char>(std::toupper(static_cast<unsigned char>(longflag[++i])));
      os << "    <" << type << ">\n"
         << "      <name>" << name << "</name>\n"
         << "      <longflag>" << longflag << "</longflag>\n"
         << "      <label>" << XMLEscape(o.label) << "</label>\n"
         << "      <description>" << XMLEscape(o.help) << "</description>\n";
      if (o.type == ValueType::InputImage)
        os << "      <channel>input</channel>\n";
      else
        os << "      <default>" << XMLEscape(o.defaultValue) << "</default>\n";
      for (const auto & choice : o.choices)
        os << "      <element>" << XMLEscape(choice) << "</element>\n";
      if (o.constraints)
        os << "      <constraints><minimum>" << o.constraints->minimum << "</minimum><maximum>"
           << o.constraints->maximum << "</maximum><step>" << o.constraints->step << "</step></constraints>\n";
      os << "    </" << type << ">\n";
    }
    os << "  </parameters>\n";
  }
  os << "  <parameters>\n"
        "    <label>IO</label>\n"
        "    <description>Input and output images.</description>\n";
  for (std::size_t i = 0; i < module.images.size(); ++i)
  {
    const SlicerImage & image = module.images[i];
    os << "    <image>\n"
       << "      <name>" << image.name << "</name>\n"
       << "      <label>" << XMLEscape(image.label) << "</label>\n"
       << "      <channel>" << image.channel << "</channel>\n"
       << "      <index>" << i << "</index>\n"
       << "      <description>" << XMLEscape(image.description) << "</description>\n"
       << "    </image>\n";
  }
  os << "  </parameters>\n"
        "</executable>\n";
}

bool
ParseToolCommandLine(Parser & parser,
                     int argc,
                     const char * const argv[],
                     ToolOptions & tool,
                     const SlicerModule & module,
                     std::ostream & out)
{
  if (!parser.Parse(argc, argv, out, 0, 2))
    return false;
  if (tool.xml)
  {
    PrintSlicerXML(parser, module, out);
    return false;
  }
  if (parser.Positionals().size() != 2)
    throw UsageError("expected <input> <output> (see --help)");
  tool.input = parser.Positionals()[0];
  tool.output = parser.Positionals()[1];
  if (tool.output.empty())
    throw UsageError("the output file name is empty");
  return true;
}

} // namespace cli
} // namespace gpur
