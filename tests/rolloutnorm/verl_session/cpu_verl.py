# SPDX-License-Identifier: MIT
"""verl 0.9.1's actor worker on CPU: the two shims it needs, a tiny model, the worker.

verl resolves its accelerator through a platform object and registers its FSDP engine for
"cuda" and "npu" only. On CPU the shims are a `PlatformBase` with device "cpu", installed
before verl asks for one, and ``VERL_ENGINE_DEVICE=cuda``, which makes verl pick the FSDP
engine, whose tensors then stay on the CPU that the platform names. verl's default FSDP1
refuses CPU parameters (``sync_module_states``), so the worker runs FSDP2, in float32 unless
asked for verl's default bf16 parameters. The model is a random Llama built from a config:
nothing is downloaded, and no tokenizer is loaded.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

import torch

VOCAB, HIDDEN, LAYERS = 128, 32, 2
FP32 = "{param_dtype: fp32, reduce_dtype: fp32, buffer_dtype: fp32}"


def install_cpu_platform() -> None:
    """Make verl run its engine on the CPU: call before anything imports verl's workers."""
    os.environ["VERL_ENGINE_DEVICE"] = "cuda"  # the device verl registers the FSDP engine for
    from verl.plugin.platform.platform_base import PlatformBase
    from verl.plugin.platform.platform_manager import set_platform

    class CpuPlatform(PlatformBase):
        """The host as verl's accelerator: one device, gloo, no profiler."""

        device_name = "cpu"
        vendor_name = "cpu"
        device_module = torch.cpu

        def is_available(self) -> bool:
            return True

        def current_device(self) -> torch.device:
            return torch.device("cpu")

        def device_count(self) -> int:
            return 1

        def set_device(self, device_index: int) -> None:
            """One device: nothing to select."""

        def synchronize(self, device_index: int | None = None) -> None:
            """CPU work is synchronous."""

        def manual_seed(self, seed: int) -> None:
            torch.manual_seed(seed)

        def manual_seed_all(self, seed: int) -> None:
            torch.manual_seed(seed)

        def set_allocator_settings(self, settings: str) -> None:
            """No device allocator."""

        def empty_cache(self) -> None:
            """No device cache."""

        def get_device_capability(self, device_index: int = 0) -> tuple[None, None]:
            return None, None

        def communication_backend_name(self) -> str:
            return "gloo"

        def visible_devices_envvar(self) -> str:
            return "CUDA_VISIBLE_DEVICES"

        @contextlib.contextmanager
        def nvtx_range(self, msg: str):
            yield

        def profiler_start(self) -> None:
            """No profiler."""

        def profiler_stop(self) -> None:
            """No profiler."""

        def ray_resource_name(self) -> str:
            return "CPU"

        def ray_noset_envvars(self) -> list[str]:
            return []

        def is_ipc_supported(self) -> bool:
            return False

        def cudart(self) -> None:
            return None

    set_platform(CpuPlatform())
    # verl's memory housekeeping and metrics call these on the device module, which for the
    # CPU has no allocator: they do nothing and report 0 bytes.
    for name in NO_ALLOCATOR:
        if not hasattr(torch.cpu, name):
            setattr(torch.cpu, name, _zero)


NO_ALLOCATOR = (
    "empty_cache",
    "ipc_collect",
    "memory_allocated",
    "memory_reserved",
    "max_memory_allocated",
    "max_memory_reserved",
    "reset_peak_memory_stats",
)


def _zero(*args: object, **kwargs: object) -> int:
    return 0


def save_tiny_model(folder: Path) -> Path:
    """A random Llama of vocabulary 128, width 32 and 2 layers, saved as verl loads a model."""
    from transformers import LlamaConfig, LlamaForCausalLM

    config = LlamaConfig(
        vocab_size=VOCAB,
        hidden_size=HIDDEN,
        intermediate_size=2 * HIDDEN,
        num_hidden_layers=LAYERS,
        num_attention_heads=4,
        num_key_value_heads=4,
        max_position_embeddings=256,  # verl V1 pads with rows of 128 tokens
        tie_word_embeddings=False,
    )
    torch.manual_seed(0)
    LlamaForCausalLM(config).save_pretrained(folder)
    return folder


def actor_config(model: Path, *, bf16: bool = False):
    """The ppo_trainer.yaml of verl, composed with Hydra, for an FSDP2 actor on the tiny model."""
    prefix = "actor_rollout_ref"
    settings = [
        f"{prefix}.model.path={model}",
        f"+{prefix}.model.load_tokenizer=false",
        f"+{prefix}.model.override_config.attn_implementation=eager",
        f"{prefix}.model.use_remove_padding=false",
        f"{prefix}.actor.strategy=fsdp2",
        f"{prefix}.actor.policy_loss.loss_mode=per_rollout_mean",
        f"{prefix}.actor.optim.lr=0",
        f"{prefix}.actor.fsdp_config.use_orig_params=true",
        f"{prefix}.actor.ppo_micro_batch_size_per_gpu=1",
        f"{prefix}.rollout.log_prob_micro_batch_size_per_gpu=1",
        f"{prefix}.actor.ppo_max_token_len_per_gpu=64",
        f"{prefix}.rollout.log_prob_max_token_len_per_gpu=64",
    ]
    if not bf16:
        settings.append(f"+{prefix}.actor.fsdp_config.mixed_precision={FP32}")
    return trainer_config(tuple(settings))


def trainer_config(overrides: tuple[str, ...] = ()):
    """The ppo_trainer.yaml of verl, composed with Hydra, with these overrides."""
    import verl.trainer.config
    from hydra import compose, initialize_config_dir

    folder = str(Path(verl.trainer.config.__file__).parent)
    with initialize_config_dir(config_dir=folder, version_base=None):
        return compose(config_name="ppo_trainer", overrides=list(overrides))
