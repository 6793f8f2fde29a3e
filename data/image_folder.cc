#include "data/image_folder.h"

#include <algorithm>
#include <cctype>
#include <filesystem>

#include "ir/error.h"

namespace ember::data {
namespace {

namespace fs = std::filesystem;

bool is_image_file(const fs::path& p) {
  std::string ext = p.extension().string();
  std::transform(ext.begin(), ext.end(), ext.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return ext == ".png" || ext == ".jpg" || ext == ".jpeg";
}

std::vector<std::string> sorted_entries(const fs::path& dir, bool directories) {
  std::vector<std::string> out;
  for (const auto& e : fs::directory_iterator(dir)) {
    if (directories ? e.is_directory() : e.is_regular_file() && is_image_file(e.path())) {
      out.push_back(e.path().filename().string());
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

size_t class_index(const std::vector<std::string>& classes, const std::string& name,
                   const std::string& path, size_t item) {
  auto it = std::find(classes.begin(), classes.end(), name);
  if (it == classes.end()) {
    throw Error("ImageFolderDataset: item " + std::to_string(item) + " (" + path + "): class '" +
                name + "' is not one of the " + std::to_string(classes.size()) + " classes");
  }
  return static_cast<size_t>(it - classes.begin());
}

}  // namespace

ImageFolderDataset::ImageFolderDataset(std::vector<Entry> items, std::vector<std::string> classes,
                                       ImageFolderOptions options)
    : items_(std::move(items)), classes_(std::move(classes)), options_(options) {}

ImageFolderDataset ImageFolderDataset::new_classification(const std::string& root,
                                                          const ImageFolderOptions& options) {
  std::error_code ec;
  if (!fs::is_directory(root, ec)) {
    throw Error("ImageFolderDataset: " + root + " is not a directory");
  }
  std::vector<std::string> classes = sorted_entries(root, true);
  if (classes.empty()) throw Error("ImageFolderDataset: " + root + " has no class folders");
  std::vector<Entry> items;
  for (size_t c = 0; c < classes.size(); ++c) {
    const fs::path dir = fs::path(root) / classes[c];
    for (const std::string& file : sorted_entries(dir, false)) {
      items.push_back({(dir / file).string(), ImageLabel{c}});
    }
  }
  return ImageFolderDataset(std::move(items), std::move(classes), options);
}

ImageFolderDataset ImageFolderDataset::new_classification_with_items(
    const std::vector<std::pair<std::string, std::string>>& items,
    const std::vector<std::string>& classes, const ImageFolderOptions& options) {
  std::vector<Entry> entries;
  for (size_t i = 0; i < items.size(); ++i) {
    const auto& [path, name] = items[i];
    entries.push_back({path, ImageLabel{class_index(classes, name, path, i)}});
  }
  return ImageFolderDataset(std::move(entries), classes, options);
}

ImageFolderDataset ImageFolderDataset::new_multilabel_classification_with_items(
    const std::vector<std::pair<std::string, std::vector<std::string>>>& items,
    const std::vector<std::string>& classes, const ImageFolderOptions& options) {
  std::vector<Entry> entries;
  for (size_t i = 0; i < items.size(); ++i) {
    const auto& [path, names] = items[i];
    ImageMultiLabel labels;
    for (const auto& name : names) labels.labels.push_back(class_index(classes, name, path, i));
    std::sort(labels.labels.begin(), labels.labels.end());
    labels.labels.erase(std::unique(labels.labels.begin(), labels.labels.end()),
                        labels.labels.end());
    entries.push_back({path, std::move(labels)});
  }
  return ImageFolderDataset(std::move(entries), classes, options);
}

ImageFolderDataset ImageFolderDataset::new_segmentation_with_items(
    const std::vector<std::pair<std::string, std::string>>& items,
    const std::vector<std::string>& classes, const ImageFolderOptions& options) {
  std::vector<Entry> entries;
  for (const auto& [image, mask] : items) entries.push_back({image, mask});
  return ImageFolderDataset(std::move(entries), classes, options);
}

SegmentationMask ImageFolderDataset::read_mask(const std::string& path, const Image& image,
                                               size_t index) const {
  const std::string where = "ImageFolderDataset: item " + std::to_string(index) + ": mask " + path;
  Image m;
  try {
    m = read_image(path, 1);
  } catch (const Error& err) {
    throw Error("ImageFolderDataset: item " + std::to_string(index) + ": " + err.what());
  }
  if (m.height != image.height || m.width != image.width) {
    throw Error(where + " is " + std::to_string(m.height) + "x" + std::to_string(m.width) +
                ", its image " + std::to_string(image.height) + "x" + std::to_string(image.width));
  }
  SegmentationMask mask{m.height, m.width, std::vector<size_t>(m.pixels.begin(), m.pixels.end())};
  for (size_t v : mask.mask) {
    if (v >= classes_.size()) {
      throw Error(where + ": value " + std::to_string(v) + " is not below the " +
                  std::to_string(classes_.size()) + " classes");
    }
  }
  return mask;
}

std::optional<ImageDatasetItem> ImageFolderDataset::get(size_t index) const {
  if (index >= items_.size()) return std::nullopt;
  const Entry& e = items_[index];
  ImageDatasetItem item;
  item.image_path = e.image_path;
  try {
    item.image = read_image(e.image_path, options_.channels);
  } catch (const Error& err) {
    throw Error("ImageFolderDataset: item " + std::to_string(index) + ": " + err.what());
  }
  if (const auto* mask_path = std::get_if<std::string>(&e.annotation)) {
    item.annotation = read_mask(*mask_path, item.image, index);
  } else if (const auto* label = std::get_if<ImageLabel>(&e.annotation)) {
    item.annotation = *label;
  } else {
    item.annotation = std::get<ImageMultiLabel>(e.annotation);
  }
  return item;
}

}  // namespace ember::data
