#pragma once
// ImageFolderDataset (Burn's ImageFolderDataset): images on disk with their annotations, decoded
// when read (PNG or JPEG, see image.h). Classification from a tree of class folders
// (root/<class>/<image>), or from lists of items for multi-class, multi-label classification and
// segmentation (a mask image whose pixel values are class indices).
#include <optional>
#include <string>
#include <utility>
#include <variant>
#include <vector>

#include "data/dataset.h"
#include "data/image.h"

namespace ember::data {

struct ImageLabel {
  size_t label = 0;  // index into the dataset's classes
};
struct ImageMultiLabel {
  std::vector<size_t> labels;  // sorted class indices
};
struct SegmentationMask {
  int64_t height = 0, width = 0;
  std::vector<size_t> mask;  // row-major class index per pixel
};
using ImageAnnotation = std::variant<ImageLabel, ImageMultiLabel, SegmentationMask>;

struct ImageDatasetItem {
  Image image;
  ImageAnnotation annotation;
  std::string image_path;
};

struct ImageFolderOptions {
  int channels = 3;  // every image decoded to this many channels (1, 3, 4; 0: the file's own)
};

class ImageFolderDataset : public Dataset<ImageDatasetItem> {
 public:
  // Classes are root's sub-folders in name order; items their .png, .jpg and .jpeg files
  // (any case), by class then file name. Throws ember::Error naming root when it is no
  // directory or holds no class folder.
  static ImageFolderDataset new_classification(const std::string& root,
                                               const ImageFolderOptions& options = {});
  // (image path, class name) items; throws ember::Error naming the item whose class is not one
  // of `classes`.
  static ImageFolderDataset new_classification_with_items(
      const std::vector<std::pair<std::string, std::string>>& items,
      const std::vector<std::string>& classes, const ImageFolderOptions& options = {});
  static ImageFolderDataset new_multilabel_classification_with_items(
      const std::vector<std::pair<std::string, std::vector<std::string>>>& items,
      const std::vector<std::string>& classes, const ImageFolderOptions& options = {});
  // (image path, mask path) items; the mask is read as one gray channel whose values index
  // `classes`; a value past them, or a mask of another size than its image, is an error naming
  // the mask and the item.
  static ImageFolderDataset new_segmentation_with_items(
      const std::vector<std::pair<std::string, std::string>>& items,
      const std::vector<std::string>& classes, const ImageFolderOptions& options = {});

  // Decodes item `index`; throws ember::Error naming the file and the item when it cannot be.
  std::optional<ImageDatasetItem> get(size_t index) const override;
  size_t len() const override { return items_.size(); }
  const std::vector<std::string>& classes() const { return classes_; }

 private:
  // What is known before decoding: the image's path, and the annotation or the mask's path.
  struct Entry {
    std::string image_path;
    std::variant<ImageLabel, ImageMultiLabel, std::string> annotation;  // string: a mask path
  };
  ImageFolderDataset(std::vector<Entry> items, std::vector<std::string> classes,
                     ImageFolderOptions options);
  SegmentationMask read_mask(const std::string& path, const Image& image, size_t index) const;

  std::vector<Entry> items_;
  std::vector<std::string> classes_;
  ImageFolderOptions options_;
};

}  // namespace ember::data
