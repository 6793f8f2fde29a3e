// Images and ImageFolderDataset on a tree of PNGs and JPEGs written here: lossless PNG round
// trips, JPEG within its loss, channel conversion, classification from class folders,
// multi-label and segmentation items, and errors naming the file and the item.
#include "data/image_folder.h"

#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <fstream>

#include "data/dataloader.h"
#include "data/image_batcher.h"
#include "tests/data/test_util.h"

namespace ember::data {
namespace {

using testing::expect_error;
using testing::ScratchDir;

// A smooth gradient (JPEG keeps it well): channel c of pixel (y, x) is 4y + 2x + 40c + seed.
Image gradient(int64_t h, int64_t w, int64_t channels, int seed) {
  Image img{h, w, channels, {}};
  for (int64_t y = 0; y < h; ++y) {
    for (int64_t x = 0; x < w; ++x) {
      for (int64_t c = 0; c < channels; ++c) {
        img.pixels.push_back(static_cast<uint8_t>((4 * y + 2 * x + 40 * c + seed) % 256));
      }
    }
  }
  return img;
}

int max_difference(const Image& a, const Image& b) {
  int worst = 0;
  for (size_t i = 0; i < a.pixels.size(); ++i)
    worst = std::max(worst, std::abs(a.pixels[i] - b.pixels[i]));
  return worst;
}

TEST(Image, PngRoundTripsExactly) {
  ScratchDir dir;
  for (int64_t channels : {1, 3, 4}) {
    Image img = gradient(9, 13, channels, 5);
    write_png(dir.file("a.png"), img);
    Image back = read_image(dir.file("a.png"));
    EXPECT_EQ(back.height, 9);
    EXPECT_EQ(back.width, 13);
    EXPECT_EQ(back.channels, channels);
    EXPECT_EQ(back.pixels, img.pixels) << channels;
  }
  // Gray to RGB repeats the value.
  write_png(dir.file("g.png"), gradient(2, 3, 1, 7));
  Image rgb = read_image(dir.file("g.png"), 3);
  ASSERT_EQ(rgb.channels, 3);
  for (int64_t x = 0; x < 3; ++x) {
    EXPECT_EQ(rgb.at(1, x, 0), gradient(2, 3, 1, 7).at(1, x, 0));
    EXPECT_EQ(rgb.at(1, x, 2), rgb.at(1, x, 0));
  }
}

TEST(Image, JpegKeepsASmoothImage) {
  ScratchDir dir;
  Image img = gradient(24, 20, 3, 10);  // no value wraps past 255
  write_jpeg(dir.file("a.jpg"), img, 95);
  Image back = read_image(dir.file("a.jpg"));
  ASSERT_EQ(back.channels, 3);
  ASSERT_EQ(back.height, 24);
  ASSERT_EQ(back.width, 20);
  EXPECT_LE(max_difference(back, img), 12);
  Image gray = gradient(16, 16, 1, 3);
  write_jpeg(dir.file("g.jpg"), gray, 95);
  EXPECT_EQ(read_image(dir.file("g.jpg")).channels, 1);
  EXPECT_LE(max_difference(read_image(dir.file("g.jpg")), gray), 6);
}

TEST(Image, BadFilesNameTheFile) {
  ScratchDir dir;
  expect_error([&] { read_image(dir.file("none.png")); }, {"cannot open", "none.png"});
  std::ofstream(dir.file("text.png")) << "not an image at all";
  expect_error([&] { read_image(dir.file("text.png")); }, {"text.png", "neither PNG nor JPEG"});
  // Truncated files: the signatures are right, the data is cut.
  for (const char* name : {"cut.png", "cut.jpg"}) {
    std::string full = dir.file(std::string("full_") + name);
    if (std::string(name).ends_with("png")) {
      write_png(full, gradient(40, 40, 3, 1));
    } else {
      write_jpeg(full, gradient(40, 40, 3, 1));
    }
    std::ifstream in(full, std::ios::binary);
    std::string bytes((std::istreambuf_iterator<char>(in)), {});
    std::ofstream(dir.file(name), std::ios::binary) << bytes.substr(0, bytes.size() / 2);
    expect_error([&] { read_image(dir.file(name)); }, {name, "bad"});
    EXPECT_EQ(read_image(full).height, 40) << "a failed decode leaves the thread's decoder usable";
  }
  expect_error([&] { write_jpeg(dir.file("x.jpg"), gradient(2, 2, 4, 0)); }, {"1 or 3 channels"});
}

class ImageTree : public ::testing::Test {
 protected:
  // root/cat: 2 PNGs, root/dog: 1 JPEG and 1 PNG, plus a text file and an empty class folder.
  void SetUp() override {
    root_ = dir_.file("root");
    for (const char* c : {"cat", "dog", "empty"})
      std::filesystem::create_directories(root_ + "/" + c);
    write_png(root_ + "/cat/b.png", gradient(8, 8, 3, 1));
    write_png(root_ + "/cat/a.PNG", gradient(8, 8, 1, 2));
    write_jpeg(root_ + "/dog/c.jpg", gradient(8, 8, 3, 3), 95);
    write_png(root_ + "/dog/d.png", gradient(8, 8, 4, 4));
    std::ofstream(root_ + "/dog/notes.txt") << "not an image";
  }
  ScratchDir dir_;
  std::string root_;
};

TEST_F(ImageTree, ClassificationFromFolders) {
  auto d = ImageFolderDataset::new_classification(root_);
  EXPECT_EQ(d.classes(), (std::vector<std::string>{"cat", "dog", "empty"}));
  ASSERT_EQ(d.len(), 4u);
  const std::vector<std::pair<std::string, size_t>> expected = {
      {"cat/a.PNG", 0}, {"cat/b.png", 0}, {"dog/c.jpg", 1}, {"dog/d.png", 1}};
  for (size_t i = 0; i < 4; ++i) {
    ImageDatasetItem item = *d.get(i);
    EXPECT_EQ(item.image_path, root_ + "/" + expected[i].first);
    EXPECT_EQ(std::get<ImageLabel>(item.annotation).label, expected[i].second);
    EXPECT_EQ(item.image.channels, 3) << i;  // every image as RGB by default
  }
  EXPECT_EQ(d.get(1)->image.pixels, gradient(8, 8, 3, 1).pixels);
  EXPECT_EQ(ImageFolderDataset::new_classification(root_, {0}).get(0)->image.channels, 1);
  expect_error([&] { ImageFolderDataset::new_classification(root_ + "/nowhere"); },
               {"nowhere", "not a directory"});
  expect_error([&] { ImageFolderDataset::new_classification(root_ + "/empty"); },
               {"empty", "no class folders"});
}

TEST_F(ImageTree, MultiLabelItems) {
  auto d = ImageFolderDataset::new_multilabel_classification_with_items(
      {{root_ + "/cat/b.png", {"cat", "animal"}}, {root_ + "/dog/c.jpg", {"dog", "animal", "dog"}}},
      {"animal", "cat", "dog"});
  EXPECT_EQ(std::get<ImageMultiLabel>(d.get(0)->annotation).labels, (std::vector<size_t>{0, 1}));
  EXPECT_EQ(std::get<ImageMultiLabel>(d.get(1)->annotation).labels, (std::vector<size_t>{0, 2}));
  expect_error(
      [&] {
        ImageFolderDataset::new_multilabel_classification_with_items(
            {{root_ + "/cat/b.png", {"cat"}}, {root_ + "/dog/c.jpg", {"wolf"}}}, {"cat", "dog"});
      },
      {"item 1", "c.jpg", "'wolf'"});
}

TEST_F(ImageTree, SegmentationMasks) {
  Image mask{2, 3, 1, {0, 1, 2, 2, 1, 0}};
  write_png(dir_.file("mask.png"), mask);
  write_png(dir_.file("image.png"), gradient(2, 3, 3, 9));
  auto d = ImageFolderDataset::new_segmentation_with_items(
      {{dir_.file("image.png"), dir_.file("mask.png")}}, {"cat", "dog", "background"});
  SegmentationMask m = std::get<SegmentationMask>(d.get(0)->annotation);
  EXPECT_EQ(m.height, 2);
  EXPECT_EQ(m.width, 3);
  EXPECT_EQ(m.mask, (std::vector<size_t>{0, 1, 2, 2, 1, 0}));
  auto two_classes = ImageFolderDataset::new_segmentation_with_items(
      {{dir_.file("image.png"), dir_.file("mask.png")}}, {"cat", "dog"});
  expect_error([&] { two_classes.get(0); }, {"item 0", "mask.png", "value 2"});
  auto wrong_size = ImageFolderDataset::new_segmentation_with_items(
      {{root_ + "/cat/b.png", dir_.file("mask.png")}}, {"a", "b", "c"});
  expect_error([&] { wrong_size.get(0); }, {"item 0", "mask.png", "2x3", "8x8"});
}

TEST_F(ImageTree, BadImageNamesFileAndItem) {
  std::ofstream(root_ + "/dog/e.jpg") << "broken";
  auto d = ImageFolderDataset::new_classification(root_);
  ASSERT_EQ(d.len(), 5u);
  expect_error([&] { d.get(4); }, {"item 4", "e.jpg"});
  std::filesystem::remove(root_ + "/cat/a.PNG");
  expect_error([&] { d.get(0); }, {"item 0", "a.PNG", "cannot open"});
}

TEST_F(ImageTree, BatcherMakesChannelsFirstTensors) {
  auto d = std::make_shared<ImageFolderDataset>(ImageFolderDataset::new_classification(root_));
  ImageClassificationBatcher batcher({0.5f, 0.25f, 0.0f}, {0.5f, 2.0f, 1.0f});
  ImageBatch b = batcher.batch({*d->get(1), *d->get(0)}, testing::dev());  // cat/b, cat/a
  ASSERT_EQ(b.images.shape(), (Shape{2, 3, 8, 8}));
  EXPECT_EQ(b.targets.to_data().to_vec<int64_t>(), (std::vector<int64_t>{0, 0}));
  std::vector<float> px = b.images.to_data().to_vec<float>();
  const Image first = gradient(8, 8, 3, 1), gray = gradient(8, 8, 1, 2);  // a.PNG: gray as RGB
  const float mean[] = {0.5f, 0.25f, 0.0f}, dev[] = {0.5f, 2.0f, 1.0f};
  for (int64_t c = 0; c < 3; ++c) {
    for (int64_t y = 0; y < 8; ++y) {
      for (int64_t x = 0; x < 8; ++x) {
        const size_t at = static_cast<size_t>((c * 8 + y) * 8 + x);
        EXPECT_FLOAT_EQ(px[at], (first.at(y, x, c) / 255.0f - mean[c]) / dev[c]);
        EXPECT_FLOAT_EQ(px[3 * 64 + at], (gray.at(y, x, 0) / 255.0f - mean[c]) / dev[c]);
      }
    }
  }
  auto own = ImageFolderDataset::new_classification(root_, {0});  // a.PNG stays gray
  expect_error(
      [&] {
        ImageClassificationBatcher().batch({*d->get(1), *own.get(0)}, testing::dev());
      },
      {"a.PNG", "8x8x1", "8x8x3"});
}

TEST_F(ImageTree, LoaderDecodesOnWorkers) {
  auto d = std::make_shared<ImageFolderDataset>(ImageFolderDataset::new_classification(root_));
  auto loader = DataLoaderBuilder<ImageDatasetItem, ImageBatch>(
                    std::make_shared<ImageClassificationBatcher>())
                    .batch_size(3)
                    .num_workers(2)
                    .build(d, testing::dev());
  auto it = loader->iter();
  auto b = it->next();
  ASSERT_TRUE(b);
  EXPECT_EQ(b->targets.to_data().to_vec<int64_t>(), (std::vector<int64_t>{0, 0, 1}));
  ASSERT_TRUE(it->next());
  EXPECT_FALSE(it->next());
  // A broken file in the next epoch reaches the consumer, naming it.
  std::ofstream(root_ + "/dog/d.png") << "broken";
  auto again = loader->iter();
  ASSERT_TRUE(again->next());
  expect_error([&] { again->next(); }, {"item 3", "d.png"});
}

}  // namespace
}  // namespace ember::data
