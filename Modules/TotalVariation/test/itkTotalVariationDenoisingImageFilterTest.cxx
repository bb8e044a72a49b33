// SPDX-License-Identifier: Apache-2.0
// Regression test of TotalVariationDenoisingImageFilter, run by itkTestDriver
// --compare (see RegressionTests.cmake):
//
//   itkTotalVariationDenoisingImageFilterTest <input.mha> <output.mha> <lambda> <auto|cpu|opencl>
//   itkTotalVariationDenoisingImageFilterTest --generate-input <input.mha>
//
// The second form writes the test input: the 2D Shepp-Logan phantom plus noise,
// with a non-trivial spacing and origin so that the test also checks that the
// filter uses the spacing and keeps the geometry.
#include "gpurDevice.h"
#include "gpurPhantom.h"
#include "itkTotalVariationDenoisingImageFilter.h"

#include "itkImage.h"
#include "itkImageFileReader.h"
#include "itkImageFileWriter.h"

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <string>

namespace
{

using ImageType = itk::Image<float, 2>;

constexpr int kSkipped = 77; // SKIP_RETURN_CODE of the CTest tests

void
GenerateInput(const std::string & path)
{
  const std::size_t n = 64;
  const double spacing = 0.8;
  const auto noisy = gpur::AddGaussianNoise(gpur::SheppLoganPhantom(gpur::MakeGrid2D(n, n)), 0.1, 7);

  auto image = ImageType::New();
  ImageType::SizeType size;
  size.Fill(n);
  image->SetRegions(size);
  image->SetSpacing(spacing);
  const double origin[] = { -25.6, 10.0 };
  image->SetOrigin(origin);
  image->Allocate();
  std::copy(noisy.begin(), noisy.end(), image->GetBufferPointer());
  itk::WriteImage(image, path, /*compress=*/true);
}

int
Denoise(const std::string & input, const std::string & output, double lambda, itk::GPURestorationEnums::Backend backend)
{
  if (backend == itk::GPURestorationEnums::Backend::OpenCL && gpur::ListDevices().empty())
  {
    std::cout << "No OpenCL device: skipped.\n";
    return kSkipped;
  }
  auto filter = itk::TotalVariationDenoisingImageFilter<ImageType>::New();
  filter->SetInput(itk::ReadImage<ImageType>(input));
  filter->SetLambda(lambda);
  filter->SetBackend(backend);
  // A fixed number of iterations (no gap test), so that every backend does the
  // same work and the outputs are comparable pixel by pixel.
  filter->SetMaximumNumberOfIterations(200);
  filter->SetGapTolerance(0.0);
  filter->Update();
  std::cout << filter->GetBackendUsed() << ": " << filter->GetNumberOfIterations() << " iterations, relative gap "
            << filter->GetRelativeGap() << "\n";
  itk::WriteImage(filter->GetOutput(), output, /*compress=*/true);
  return EXIT_SUCCESS;
}

} // namespace

int
main(int argc, char * argv[])
{
  try
  {
    if (argc == 3 && std::string(argv[1]) == "--generate-input")
    {
      GenerateInput(argv[2]);
      return EXIT_SUCCESS;
    }
    if (argc != 5)
    {
      std::cerr << "usage: " << argv[0] << " <input> <output> <lambda> <auto|cpu|opencl>\n"
                << "       " << argv[0] << " --generate-input <input>\n";
      return EXIT_FAILURE;
    }
    return Denoise(argv[1],
                   argv[2],
                   std::stod(argv[3]),
                   itk::GPURestoration::FromEngine<itk::GPURestorationEnums::Backend>(gpur::ParseBackend(argv[4])));
  }
  catch (const std::exception & e)
  {
    std::cerr << "itkTotalVariationDenoisingImageFilterTest: " << e.what() << "\n";
    return EXIT_FAILURE;
  }
}
