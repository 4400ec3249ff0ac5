"""Models held in a tree's leaves, beside the class counts every leaf keeps."""
