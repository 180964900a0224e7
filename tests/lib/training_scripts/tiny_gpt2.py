"""The tiny model and data the training tests and scripts share: a 2-layer GPT-2 of width
64, randomly initialised (no download), and random token sequences, the same every run."""

import torch
import transformers


class Tokens(torch.utils.data.Dataset):
    """``size`` random sequences of 16 tokens out of 128, each seeded by its index."""

    def __init__(self, size: int = 512):
        self.size = size

    def __len__(self):
        return self.size

    def __getitem__(self, index):
        ids = torch.randint(0, 128, (16,), generator=torch.Generator().manual_seed(index))
        return {"input_ids": ids, "labels": ids}


def tiny_gpt2() -> transformers.GPT2LMHeadModel:
    """The model, its weights drawn after seeding PyTorch with 0."""
    torch.manual_seed(0)
    config = transformers.GPT2Config(n_layer=2, n_embd=64, n_head=2, vocab_size=128,
                                     n_positions=32)
    return transformers.GPT2LMHeadModel(config)
