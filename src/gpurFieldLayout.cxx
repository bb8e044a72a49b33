// SPDX-License-Identifier: Apache-2.0
#include "gpurFieldLayout.h"

#include "gpurError.h"

namespace gpur
{

unsigned
FieldLayout::Index(const std::string & name) const
{
  for (unsigned k = 0; k < fields.size(); ++k)
    if (fields[k].name == name)
      return k;
  throw InvalidArgument(method + ": no field named '" + name + "'");
}

void
FieldLayout::Validate() const
{
  for (const Field & f : fields)
  {
    if (!f.Present())
      continue;
    if (f.role == FieldRole::Input && f.components > 1)
      throw InvalidArgument(method + ": the input field '" + f.name + "' has " + std::to_string(f.components) +
                            " components; inputs have one");
    if (f.role == FieldRole::State && f.initialFrom != Field::kZero &&
        (f.initialFrom >= fields.size() || fields[f.initialFrom].role != FieldRole::Input || f.components != 1))
      throw InvalidArgument(method + ": the state field '" + f.name +
                            "' starts as a field that is not an input, or has several components");
  }
  if (decomposable && stencilRadius == 0)
    throw InvalidArgument(method + ": a decomposable layout needs a stencil radius >= 1");
}

} // namespace gpur
