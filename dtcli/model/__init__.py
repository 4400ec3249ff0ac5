"""The model files: every kind's JSON, versioned and validated on load, never pickle.

`files` saves and loads any kind (its names are handed on here, so
`from dtcli.model import load_model` reads as before); `kinds` says which module
writes and reads each kind; `check` validates fields; `categories` packs a tree's
category sets.
"""
from dtcli.model.files import load_model, model_from_dict, model_to_dict, save_model

__all__ = ["load_model", "model_from_dict", "model_to_dict", "save_model"]
