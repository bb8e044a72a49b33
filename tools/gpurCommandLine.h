// SPDX-License-Identifier: Apache-2.0
/*
 * A small command-line parser shared by the project's programs (tools/, examples/ and
 * bench/). It depends on the C++ standard library only, so ITK-free programs
 * such as tv_bench can use it.
 *
 * A program declares a table of options; each option has a flag ("--lambda"),
 * a value name, a help text and a parse function that stores the value (or, for a
 * switch, is called with an empty string). Parse() accepts "--flag value" and
 * "--flag=value", collects positional arguments, handles -h/--help and throws
 * UsageError with a one-line reason that names the option for anything wrong.
 * The table also carries what a GUI needs (label, type, default, choices), so
 * that descriptions such as a 3D Slicer CLI XML are generated from the same table
 * and can never disagree with the real flags.
 */
#ifndef gpurCommandLine_h
#define gpurCommandLine_h

#include <deque>
#include <functional>
#include <limits>
#include <optional>
#include <ostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace gpur
{
namespace cli
{

/** A bad command line: the message is one line that names the option. */
class UsageError : public std::invalid_argument
{
public:
  using std::invalid_argument::invalid_argument;
};

/** What kind of value an option takes (for help texts and generated descriptions). */
enum class ValueType
{
  Switch,      ///< no value
  Double,      ///< a finite floating-point number
  Integer,     ///< a non-negative integer
  String,      ///< any text
  Enumeration, ///< one of Option::choices
  InputImage   ///< the file name of an image to read (a GUI offers its image selector)
};

/** Range and increment of a number, for GUIs (Slicer's <constraints>). */
struct Constraints
{
  double minimum = 0.0;
  double maximum = 0.0;
  double step = 0.0;
};

struct Option
{
  std::string flag;      ///< "--lambda"
  std::string valueName; ///< "L" in "--lambda L"; empty for a switch
  std::string help;      ///< one sentence
  ValueType type = ValueType::Switch;
  std::string label;                      ///< short title for GUIs; empty: derived from the flag
  std::string defaultValue;               ///< shown in the help and in generated descriptions
  std::vector<std::string> choices;       ///< for ValueType::Enumeration
  std::string group;                      ///< GUI parameter group (e.g. "Execution"); empty: the first
  bool hidden = false;                    ///< not a processing parameter (e.g. --help, --xml): left out of GUIs
  std::optional<Constraints> constraints; ///< for Double and Integer options; none: unconstrained in GUIs
  std::function<void(const std::string &)> parse;
};

/** Number parsing with errors that name the option (std::stod alone says only "stod"). */
double
ParseDouble(const std::string & option, const std::string & value);
/** A finite number > 0. */
double
ParsePositiveDouble(const std::string & option, const std::string & value);
/** A finite number >= 0. */
double
ParseNonNegativeDouble(const std::string & option, const std::string & value);
/** An integer in [minimum, maximum] (decimal digits only). */
unsigned long
ParseUnsigned(const std::string & option,
              const std::string & value,
              unsigned long minimum = 0,
              unsigned long maximum = std::numeric_limits<unsigned long>::max());
/** One of choices, case-insensitive; returns the choice as spelled in choices. */
std::string
ParseChoice(const std::string & option, const std::string & value, const std::vector<std::string> & choices);

class Parser
{
public:
  /** program: the name in messages; positionals: e.g. "<input> <output>"; summary: one paragraph for --help. */
  Parser(std::string program, std::string positionals, std::string summary);

  /** Adds an option; returns it so that callers may fill label, defaultValue, ... */
  Option &
  Add(Option option);

  /** Typed shortcuts that store into target (which must outlive Parse()). */
  Option &
  AddSwitch(const std::string & flag, const std::string & help, bool & target);
  Option &
  AddDouble(const std::string & flag,
            const std::string & valueName,
            const std::string & help,
            double & target,
            double (*check)(const std::string &, const std::string &) = ParseDouble);
  Option &
  AddUnsigned(const std::string & flag,
              const std::string & valueName,
              const std::string & help,
              unsigned & target,
              unsigned minimum = 0,
              unsigned maximum = std::numeric_limits<unsigned>::max());
  Option &
  AddString(const std::string & flag, const std::string & valueName, const std::string & help, std::string & target);
  Option &
  AddChoice(const std::string & flag,
            const std::string & help,
            const std::vector<std::string> & choices,
            std::string & target);
  /** An optional input image file; target stays empty when the option is not given. */
  Option &
  AddInputImage(const std::string & flag,
                const std::string & valueName,
                const std::string & help,
                std::string & target);

  /**
   * Parses argv[1..argc). Returns false when --help was given (the help is then
   * printed to out); throws UsageError for an unknown option, a missing or bad
   * value, or a number of positional arguments outside [minPositionals, maxPositionals].
   */
  bool
  Parse(int argc,
        const char * const argv[],
        std::ostream & out,
        std::size_t minPositionals,
        std::size_t maxPositionals);

  const std::vector<std::string> &
  Positionals() const
  {
    return m_Positionals;
  }
  /** In the order added (a deque: references returned by Add() stay valid). */
  const std::deque<Option> &
  Options() const
  {
    return m_Options;
  }
  const std::string &
  Program() const
  {
    return m_Program;
  }

  void
  PrintUsage(std::ostream & os) const;
  void
  PrintHelp(std::ostream & os) const;

private:
  const Option *
  Find(const std::string & flag) const;

  std::string m_Program;
  std::string m_PositionalsText;
  std::string m_Summary;
  std::deque<Option> m_Options;
  std::vector<std::string> m_Positionals;
};

/** Where a denoising tool runs and what it prints (the options every tool shares), and its files. */
struct ToolOptions
{
  std::string backend = "auto";
  std::string device;
  unsigned deviceMemoryMiB = 0; ///< --device-memory-limit; 0: 90 % of the device
  bool quiet = false;
  bool xml = false;
  std::string input;  ///< the first positional argument
  std::string output; ///< the second
};

/** Whether a tool's filter honours a device memory limit (streams a volume that does not fit through host memory). */
enum class DeviceMemoryLimit
{
  Offered,   ///< --device-memory-limit is in the table
  NotOffered ///< the filter keeps the whole problem on the device: the option is not advertised, hence unknown
};

/**
 * Adds --backend, --device and, when offered, --device-memory-limit (GUI group "Execution"), and the hidden
 * --quiet and --xml. A tool offers only options it honours, so that its --help and Slicer description never
 * list one that it would refuse.
 */
void
AddToolOptions(Parser & parser, ToolOptions & target, DeviceMemoryLimit memoryLimit);

/** A positional image argument of a tool, for its Slicer description. */
struct SlicerImage
{
  std::string name;    ///< identifier, e.g. "inputVolume"
  std::string label;   ///< e.g. "Input volume"
  std::string channel; ///< "input" or "output"
  std::string description;
};

/** What a Slicer Execution Model description needs besides the option table. */
struct SlicerModule
{
  std::string category; ///< e.g. "Filtering.Denoising"
  std::string title;
  std::string description;
  /** (label, description) of the parameter groups in order; options with an empty group go to the first. */
  std::vector<std::pair<std::string, std::string>> groups;
  /** The positional arguments, in order (their <index>). */
  std::vector<SlicerImage> images;
};

/** text with &, <, > and " escaped for XML content or attributes. */
std::string
XMLEscape(const std::string & text);

/**
 * Prints the 3D Slicer Execution Model description (XML) of a tool: its
 * visible options (generated from the parser's table, so the flags always
 * match; InputImage options become flagged input images) and its positional
 * images. Throws std::logic_error for an option whose group is not in module.groups.
 */
void
PrintSlicerXML(const Parser & parser, const SlicerModule & module, std::ostream & os);

/**
 * Parses the command line "[options] <input> <output>" of a tool declared with
 * AddToolOptions into tool.input and tool.output. Returns false when there is
 * nothing more to do: --help printed the help, or --xml printed module's Slicer
 * description (to out; --xml needs no positional arguments, Slicer runs "tool --xml").
 * Throws UsageError as Parser::Parse, and for a missing or empty file name.
 */
bool
ParseToolCommandLine(Parser & parser,
                     int argc,
                     const char * const argv[],
                     ToolOptions & tool,
                     const SlicerModule & module,
                     std::ostream & out);

} // namespace cli
} // namespace gpur

#endif
