// SPDX-License-Identifier: Apache-2.0
// Renders a noisy and a denoised volume side by side with VTK, off screen, and
// writes the picture to a PNG file:
//
//   TVRenderSlices [--output FILE] [--width W] [--height H] [--window W] [--level L]
//                  [--azimuth DEG] [--elevation DEG] NOISY DENOISED
//   TVRenderSlices --check FILE [--width W] [--height H] [--min-ratio R]
//
// NOISY and DENOISED are MetaImage volumes (.mha/.mhd), e.g. tv_noisy.mha and
// tv_denoised.mha of TVDenoisePhantom. Each half of the picture shows three
// orthogonal slices through the centre of one volume (the whole axial slice, and
// the far quarters of the coronal and sagittal ones standing on it), in grey over
// the same fixed window (default [0, 0.5]: --window 0.5 --level 0.25), in framed
// planes inside the volume's outline, seen by the same camera. Volumes are shown
// in their origin and spacing; a direction matrix is ignored (vtkMetaImageReader
// does not read it), which is exact for TVDenoisePhantom's identity direction.
//
// --check reads a picture written by this program back and tests it: its size is
// W x H, it is not blank, both halves show slices, and the left (noisy) half is
// rougher than the right (denoised) one by at least R: the median grey stddev of
// the 8 x 8 pixel tiles that lie on the slices, left divided by right.
// It prints the numbers and exits non-zero when one of the tests fails.
//
// Debian's VTK renders through X only (no EGL/OSMesa): without a display, run it
// under `xvfb-run -a -s "-screen 0 1280x1024x24"`. Uses VTK only (no ITK).
#include "gpurCommandLine.h"

#include <vtkActor.h>
#include <vtkCamera.h>
#include <vtkImageData.h>
#include <vtkImageProperty.h>
#include <vtkImageSlice.h>
#include <vtkImageSliceMapper.h>
#include <vtkMetaImageReader.h>
#include <vtkNew.h>
#include <vtkOutlineSource.h>
#include <vtkPNGReader.h>
#include <vtkPNGWriter.h>
#include <vtkPolyDataMapper.h>
#include <vtkProperty.h>
#include <vtkRenderWindow.h>
#include <vtkRenderer.h>
#include <vtkRenderingOpenGLConfigure.h>
#include <vtkSmartPointer.h>
#include <vtkTextActor.h>
#include <vtkTextProperty.h>
#include <vtkWindowToImageFilter.h>

#include <algorithm>
#include <array>
#include <cmath>
#include <cstdlib>
#include <filesystem>
#include <iomanip>
#include <iostream>
#include <stdexcept>
#include <string>
#include <vector>

namespace
{

struct Options
{
  std::string output = "out/tv_phantom_render.png";
  unsigned width = 1200;
  unsigned height = 600;
  // Grey map: level - window/2 -> black, level + window/2 -> white. [0, 0.5] shows
  // the phantom's soft tissue (0.1-0.4) as a CT brain window does; bone (1) is white.
  double window = 0.5;
  double level = 0.25;
  double azimuth = -35.0;  // degrees about the head axis (+z), from the front (-y, anterior in LPS)
  double elevation = 30.0; // degrees above the axial plane
  std::string check;       // --check FILE: test a rendered picture instead of rendering
  double minRatio = 2.0;   // --check: required roughness ratio noisy / denoised
  std::vector<std::string> inputs;
};

/** Parses the options with the shared gpur::cli parser; returns false after --help. */
bool
ParseArguments(int argc, char * argv[], Options & options)
{
  gpur::cli::Parser parser("TVRenderSlices",
                           "<noisy.mha> <denoised.mha>",
                           "Renders three orthogonal slices of a noisy and a denoised volume side by side with VTK "
                           "(off screen) and writes a PNG; --check tests such a PNG.");
  parser.AddString("--output", "FILE", "PNG file to write.", options.output);
  parser.AddUnsigned("--width", "W", "Picture width in pixels (also what --check expects).", options.width, 64, 8192);
  parser.AddUnsigned(
    "--height", "H", "Picture height in pixels (also what --check expects).", options.height, 64, 8192);
  parser.AddDouble(
    "--window", "W", "Grey window width (intensity units).", options.window, gpur::cli::ParsePositiveDouble);
  parser.AddDouble("--level", "L", "Grey window centre (intensity units).", options.level);
  parser.AddDouble("--azimuth", "DEG", "Camera azimuth about +z, from the front (-y).", options.azimuth);
  parser.AddDouble("--elevation", "DEG", "Camera elevation above the axial plane.", options.elevation);
  parser.AddString("--check", "FILE", "Test a picture written by this program instead of rendering.", options.check);
  parser.AddDouble("--min-ratio",
                   "R",
                   "With --check: least roughness ratio noisy (left) / denoised (right).",
                   options.minRatio,
                   gpur::cli::ParsePositiveDouble);
  if (!parser.Parse(argc, argv, std::cout, 0, 2))
    return false;
  options.inputs = parser.Positionals();
  if (options.check.empty() && options.inputs.size() != 2)
    throw gpur::cli::UsageError("give the noisy and the denoised volume (or --check FILE)");
  if (!options.check.empty() && !options.inputs.empty())
    throw gpur::cli::UsageError("--check takes no volumes");
  return true;
}

vtkSmartPointer<vtkImageData>
ReadVolume(const std::string & fileName)
{
  auto reader = vtkSmartPointer<vtkMetaImageReader>::New();
  if (!std::filesystem::exists(fileName) || !reader->CanReadFile(fileName.c_str()))
    throw std::runtime_error("cannot read '" + fileName + "' as a MetaImage (.mha/.mhd) file");
  reader->SetFileName(fileName.c_str());
  reader->Update();
  vtkImageData * image = reader->GetOutput();
  int dims[3];
  image->GetDimensions(dims);
  if (image->GetNumberOfPoints() < 8 || dims[0] < 2 || dims[1] < 2 || dims[2] < 2 ||
      image->GetNumberOfScalarComponents() != 1)
    throw std::runtime_error("'" + fileName + "' is not a scalar 3D volume");
  return image;
}

/** A wire box (a rectangle when flat) with the given world bounds. */
void
AddOutline(vtkRenderer * renderer, const double bounds[6], double red, double green, double blue, float lineWidth)
{
  vtkNew<vtkOutlineSource> outline;
  outline->SetBounds(bounds[0], bounds[1], bounds[2], bounds[3], bounds[4], bounds[5]);
  vtkNew<vtkPolyDataMapper> mapper;
  mapper->SetInputConnection(outline->GetOutputPort());
  vtkNew<vtkActor> actor;
  actor->SetMapper(mapper);
  actor->GetProperty()->SetColor(red, green, blue);
  actor->GetProperty()->SetLineWidth(lineWidth);
  renderer->AddActor(actor);
}

/**
 * Three orthogonal slices through the centre of a volume in one renderer, cut so
 * that none hides another: the whole axial slice (z) as a floor, and standing on
 * it the quarters of the coronal (y) and sagittal (x) slices that lie on the far
 * side from the camera (a corner open towards the viewer). view: the direction
 * from the volume's centre to the camera. Each slice has a coloured frame (3D
 * Slicer's colours: axial red, coronal green, sagittal yellow), the volume a grey
 * outline, and the half a label.
 */
void
AddSlices(vtkRenderer * renderer,
          vtkImageData * volume,
          const double view[3],
          const Options & options,
          const std::string & label)
{
  int extent[6];
  volume->GetExtent(extent);
  double origin[3], spacing[3];
  volume->GetOrigin(origin);
  volume->GetSpacing(spacing);
  int centre[3];
  for (int axis = 0; axis < 3; ++axis)
    centre[axis] = (extent[2 * axis] + extent[2 * axis + 1]) / 2;
  const double frameColours[3][3] = { { 0.93, 0.84, 0.29 }, { 0.43, 0.69, 0.38 }, { 0.95, 0.42, 0.40 } };

  for (int axis = 0; axis < 3; ++axis)
  {
    int shown[6]; // the voxel extent drawn
    std::copy(extent, extent + 6, shown);
    shown[2 * axis] = shown[2 * axis + 1] = centre[axis];
    if (axis != 2)
    {
      // The standing slices: above the floor (below when seen from below), on the far side.
      const int across = 1 - axis; // x slice: cut along y; y slice: cut along x
      shown[view[2] >= 0.0 ? 4 : 5] = centre[2];
      shown[view[across] < 0.0 ? 2 * across : 2 * across + 1] = centre[across];
    }
    vtkNew<vtkImageSliceMapper> mapper;
    mapper->SetInputData(volume);
    mapper->SetOrientation(axis);
    mapper->SetSliceNumber(centre[axis]);
    mapper->SetCroppingRegion(shown);
    mapper->CroppingOn();
    vtkNew<vtkImageSlice> slice;
    slice->SetMapper(mapper);
    vtkImageProperty * property = slice->GetProperty();
    property->SetColorWindow(options.window); // no lookup table: a grey ramp over the window
    property->SetColorLevel(options.level);
    property->SetInterpolationTypeToLinear();
    renderer->AddViewProp(slice);

    double frame[6];
    for (int a = 0; a < 3; ++a)
    {
      frame[2 * a] = origin[a] + spacing[a] * shown[2 * a];
      frame[2 * a + 1] = origin[a] + spacing[a] * shown[2 * a + 1];
    }
    AddOutline(renderer, frame, frameColours[axis][0], frameColours[axis][1], frameColours[axis][2], 2.0f);
  }
  AddOutline(renderer, volume->GetBounds(), 0.45, 0.47, 0.52, 1.0f);

  vtkNew<vtkTextActor> text;
  text->SetInput(label.c_str());
  text->GetTextProperty()->SetFontSize(static_cast<int>(options.height / 24));
  text->GetTextProperty()->SetColor(1.0, 1.0, 1.0);
  text->SetPosition(12.0, options.height - 12.0 - options.height / 24.0);
  renderer->AddActor2D(text);
}

int
Render(const Options & options)
{
#if defined(VTK_USE_X) && !defined(VTK_OPENGL_HAS_EGL) && !defined(VTK_OPENGL_HAS_OSMESA)
  // This VTK opens an X connection even off screen, and aborts without one.
  const char * display = std::getenv("DISPLAY");
  if (!display || !*display)
  {
    std::cerr << "TVRenderSlices: this VTK renders through X and DISPLAY is not set; run it under "
                 "xvfb-run -a -s \"-screen 0 1280x1024x24\"\n";
    return 1;
  }
#endif
  const std::array<vtkSmartPointer<vtkImageData>, 2> volumes = { ReadVolume(options.inputs[0]),
                                                                 ReadVolume(options.inputs[1]) };
  const std::array<std::string, 2> labels = { "noisy", "TV denoised" };

  vtkNew<vtkRenderWindow> window;
  window->SetOffScreenRendering(1);
  window->SetMultiSamples(0);
  window->SetSize(static_cast<int>(options.width), static_cast<int>(options.height));
  // The camera, shared so that both halves are seen the same way: from the front
  // (-y, anterior in LPS), head axis (+z) up, then turned by the azimuth about +z
  // and raised by the elevation.
  vtkNew<vtkCamera> camera;
  double centre[3], view[3];
  volumes[0]->GetCenter(centre);
  camera->SetFocalPoint(centre);
  camera->SetPosition(centre[0], centre[1] - 1.0, centre[2]);
  camera->SetViewUp(0.0, 0.0, 1.0);
  camera->Azimuth(options.azimuth);
  camera->Elevation(options.elevation);
  camera->OrthogonalizeViewUp();
  camera->GetDirectionOfProjection(view);
  for (double & v : view)
    v = -v; // towards the camera

  std::array<vtkNew<vtkRenderer>, 2> renderers;
  for (std::size_t i = 0; i < 2; ++i)
  {
    vtkRenderer * renderer = renderers[i];
    renderer->SetViewport(0.5 * static_cast<double>(i), 0.0, 0.5 * static_cast<double>(i + 1), 1.0);
    renderer->SetBackground(0.08, 0.09, 0.12);
    renderer->SetActiveCamera(camera);
    AddSlices(renderer,
              volumes[i],
              view,
              options,
              labels[i] + ": " + std::filesystem::path(options.inputs[i]).filename().string());
    window->AddRenderer(renderer);
  }
  renderers[0]->ResetCamera(); // keeps the direction, fits the first volume's bounds
  camera->Zoom(1.15);
  renderers[0]->ResetCameraClippingRange();
  renderers[1]->ResetCameraClippingRange();
  window->Render();

  vtkNew<vtkWindowToImageFilter> grab;
  grab->SetInput(window);
  grab->SetInputBufferTypeToRGB();
  grab->ReadFrontBufferOff();
  grab->Update();

  const std::filesystem::path output(options.output);
  if (output.has_parent_path())
    std::filesystem::create_directories(output.parent_path());
  vtkNew<vtkPNGWriter> writer;
  writer->SetInputConnection(grab->GetOutputPort());
  writer->SetFileName(options.output.c_str());
  writer->Write();
  if (writer->GetErrorCode() != 0 || !std::filesystem::exists(output))
    throw std::runtime_error("cannot write '" + options.output + "'");
  std::cout << "wrote " << options.output << " (" << options.width << " x " << options.height
            << "): three orthogonal slices, left " << options.inputs[0] << ", right " << options.inputs[1]
            << ", grey window [" << options.level - 0.5 * options.window << ", " << options.level + 0.5 * options.window
            << "]\n";
  return 0;
}

/** Grey-value statistics of the columns [x0, x1) of a picture. */
struct HalfStatistics
{
  double foreground = 0.0; // fraction of pixels that differ from the background colour
  double roughness = 0.0;  // median grey stddev of the kTile x kTile tiles that lie on the slices
  std::size_t tiles = 0;   // how many tiles lie on the slices
};

constexpr int kTile = 8;

/**
 * grey: the grey value of each pixel, row by row; foreground: whether it differs
 * from the background colour. Flat (denoised) slices give tiles with a small
 * grey stddev and noisy ones a large one; the median ignores the few tiles
 * crossed by an edge, an outline or a label.
 */
HalfStatistics
Measure(const std::vector<double> & grey, const std::vector<bool> & foreground, int width, int height, int x0, int x1)
{
  HalfStatistics s;
  std::size_t count = 0, inside = 0;
  for (int y = 0; y < height; ++y)
  {
    for (int x = x0; x < x1; ++x)
    {
      ++count;
      inside += foreground[static_cast<std::size_t>(y) * width + x] ? 1 : 0;
    }
  }
  s.foreground = static_cast<double>(inside) / static_cast<double>(count);

  std::vector<double> deviations;
  for (int ty = 0; ty + kTile <= height; ty += kTile)
  {
    for (int tx = x0; tx + kTile <= x1; tx += kTile)
    {
      double sum = 0.0, sum2 = 0.0;
      bool onSlices = true;
      for (int y = ty; y < ty + kTile && onSlices; ++y)
      {
        for (int x = tx; x < tx + kTile; ++x)
        {
          const std::size_t i = static_cast<std::size_t>(y) * width + x;
          onSlices = onSlices && foreground[i];
          sum += grey[i];
          sum2 += grey[i] * grey[i];
        }
      }
      if (!onSlices)
        continue;
      const double n = kTile * kTile, mean = sum / n;
      deviations.push_back(std::sqrt(std::max(0.0, sum2 / n - mean * mean)));
    }
  }
  s.tiles = deviations.size();
  if (!deviations.empty())
  {
    auto middle = deviations.begin() + static_cast<std::ptrdiff_t>(deviations.size() / 2);
    std::nth_element(deviations.begin(), middle, deviations.end());
    s.roughness = *middle;
  }
  return s;
}

int
Check(const Options & options)
{
  vtkNew<vtkPNGReader> reader;
  if (!std::filesystem::exists(options.check) || !reader->CanReadFile(options.check.c_str()))
    throw std::runtime_error("cannot read '" + options.check + "' as a PNG file");
  reader->SetFileName(options.check.c_str());
  reader->Update();
  vtkImageData * image = reader->GetOutput();
  int dims[3];
  image->GetDimensions(dims);
  const int width = dims[0], height = dims[1];
  const int components = image->GetNumberOfScalarComponents();
  const int colours = components >= 3 ? 3 : 1; // ignore alpha
  if (width < 2 * kTile || height < kTile)
    throw std::runtime_error("'" + options.check + "' is too small to measure");

  // The background colour (a corner: outside the slices and the labels) is tinted,
  // so that no grey slice pixel can have it.
  std::array<double, 3> background{};
  for (int c = 0; c < colours; ++c)
    background[c] = image->GetScalarComponentAsDouble(0, 0, 0, c);
  std::vector<double> grey(static_cast<std::size_t>(width) * height);
  std::vector<bool> foreground(grey.size());
  double sum = 0.0, sum2 = 0.0;
  for (int y = 0; y < height; ++y)
  {
    for (int x = 0; x < width; ++x)
    {
      double g = 0.0, difference = 0.0;
      for (int c = 0; c < colours; ++c)
      {
        const double v = image->GetScalarComponentAsDouble(x, y, 0, c);
        g += v;
        difference = std::max(difference, std::abs(v - background[c]));
      }
      g /= colours;
      const std::size_t i = static_cast<std::size_t>(y) * width + x;
      grey[i] = g;
      foreground[i] = difference > 2.0;
      sum += g;
      sum2 += g * g;
    }
  }
  const double n = static_cast<double>(grey.size()), mean = sum / n;
  const double stddev = std::sqrt(std::max(0.0, sum2 / n - mean * mean));
  const HalfStatistics left = Measure(grey, foreground, width, height, 0, width / 2);
  const HalfStatistics right = Measure(grey, foreground, width, height, width / 2, width);
  const double ratio = left.roughness / std::max(right.roughness, 1e-3);

  std::cout << std::fixed << std::setprecision(3) << "picture:          " << width << " x " << height << ", "
            << components << " components (expected " << options.width << " x " << options.height << ")\n"
            << "grey mean/stddev: " << mean << " / " << stddev << "\n"
            << "foreground:       left " << left.foreground << ", right " << right.foreground << "\n"
            << "roughness:        median grey stddev of the " << kTile << "x" << kTile
            << " tiles on the slices: left (noisy) " << left.roughness << " (" << left.tiles
            << " tiles), right (denoised) " << right.roughness << " (" << right.tiles << " tiles), ratio " << ratio
            << " (required >= " << options.minRatio << ")\n";
  std::vector<std::string> failures;
  if (width != static_cast<int>(options.width) || height != static_cast<int>(options.height))
    failures.push_back("wrong size");
  if (stddev < 10.0)
    failures.push_back("nearly constant picture (grey stddev < 10)");
  if (left.foreground < 0.1 || right.foreground < 0.1 || left.tiles < 20 || right.tiles < 20)
    failures.push_back("a half shows too little of the slices (< 10% of its pixels or < 20 tiles)");
  if (!(ratio >= options.minRatio))
    failures.push_back("the noisy half is not rougher than the denoised half by the required ratio");
  for (const auto & f : failures)
    std::cout << "FAILED: " << f << "\n";
  if (failures.empty())
    std::cout << "OK\n";
  return failures.empty() ? 0 : 1;
}

} // namespace

int
main(int argc, char * argv[])
{
  try
  {
    Options options;
    if (!ParseArguments(argc, argv, options))
      return 0; // --help
    return options.check.empty() ? Render(options) : Check(options);
  }
  catch (const std::exception & e)
  {
    std::cerr << "TVRenderSlices: " << e.what() << "\n";
  }
  return 1;
}
