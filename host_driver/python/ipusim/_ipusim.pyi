# Type stubs of the native module ipusim._ipusim (host_driver/python/src). The test
# testbench/python/test_stubs.py checks that these names and the module's agree.
import builtins
import os
import typing
from typing import Any, Callable, List, Optional, Sequence, Tuple, Union, overload

import numpy
import numpy.typing

_Path = Union[str, os.PathLike[str]]
_Buffer = Any  # any object with the buffer protocol: numpy arrays, bytes, bytearray, memoryview
_DType = numpy.typing.DTypeLike
_Count = Union[int, Tuple[int, ...], None]
_Range = Union["TileRange", Tuple[int, int, int]]

# ---- errors ------------------------------------------------------------------------

class DeviceErrorInfo:
    code: int
    code_name: str
    kind: Optional[str]
    ipu: Optional[int]
    tile: Optional[int]
    thread: Optional[int]
    pc: Optional[int]
    function: Optional[str]
    source: Optional[str]
    addr: int
    cycle: int
    count: int
    superstep: Optional[int]
    peer_ipu: Optional[int]
    peer_tile: Optional[int]
    peer_pc: Optional[int]
    peer_function: Optional[str]
    peer_source: Optional[str]
    waiting: int
    absent_count: int
    absent: List[Tuple[int, int]]
    text: Optional[str]

def describe(info: DeviceErrorInfo) -> str: ...
def device_error_name(code: int) -> str: ...

class Error(Exception):
    code: Optional[int]
    code_name: Optional[str]
    kind: Optional[str]
    ipu: Optional[int]
    tile: Optional[int]
    thread: Optional[int]
    pc: Optional[int]
    function: Optional[str]
    source: Optional[str]
    addr: Optional[int]
    cycle: Optional[int]
    count: Optional[int]
    superstep: Optional[int]
    peer_ipu: Optional[int]
    peer_tile: Optional[int]
    peer_pc: Optional[int]
    peer_function: Optional[str]
    peer_source: Optional[str]
    waiting: Optional[int]
    absent_count: Optional[int]
    absent: Optional[List[Tuple[int, int]]]
    text: Optional[str]
    device_error: Optional[DeviceErrorInfo]

class TileFaultError(Error): ...
class ExchangeError(Error): ...
class DeadlockError(Error): ...
class StreamingMemoryError(Error): ...
class StreamError(Error): ...
class DmaError(Error): ...
class BootError(Error): ...
class DeviceStateError(Error): ...
class BudgetError(Error): ...
class RegisterError(Error): ...
class TimeoutError(Error, builtins.TimeoutError): ...
class TransportError(Error): ...
class ProtocolError(TransportError): ...
class UsageError(Error): ...
class ProgramError(Error): ...

# ---- programs ----------------------------------------------------------------------

class ElfSegment:
    vaddr: int
    mem_bytes: int
    data: bytes

class Elf:
    @staticmethod
    def from_file(path: _Path) -> Elf: ...
    @staticmethod
    def from_bytes(data: _Buffer, name: str = "<bytes>") -> Elf: ...
    name: str
    entry: int
    code_base: int
    code_size: int
    image_end: int
    segments: List[ElfSegment]
    def symbol(self, name: str) -> Optional[int]: ...
    def symbol_size(self, name: str) -> Optional[int]: ...
    def __contains__(self, name: str) -> bool: ...
    def locate(self, pc: int) -> Tuple[Optional[str], Optional[str]]: ...

# ---- records -----------------------------------------------------------------------

class DeviceInfo:
    locator: str
    version_major: int
    version_minor: int
    board_index: int
    boards: int
    ipus: int
    ipus_per_board: int
    tiles_per_ipu: int
    workers: int
    system_ipus: int
    sram_bytes: int
    tile_clock_khz: int
    smem_bytes: int
    host_link_mbps: int
    stream_fifo_bytes: int
    has_streams: bool
    amp_f16_macs: int
    amp_f32_macs: int
    in_process: bool

class RunState:
    PAUSED: RunState
    HALTED: RunState
    name: str
    value: int
    def __init__(self, value: int) -> None: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...

class RunStats:
    cycles: int
    instructions: int
    supersteps: int
    exchange_bytes: int
    sim_time_ns: int
    booted_tiles: int

class SuperstepStats:
    tiles: int
    exchanging_tiles: int
    incomplete_tiles: int
    begin_cycle: int
    end_cycle: int
    compute_cycles: int
    sync_cycles: int
    exchange_cycles: int
    instructions: int
    exchange_bytes: int

class LinkStats:
    link: int
    from_ipu: int
    to_ipu: int
    frames: int
    bytes: int
    frames_replayed: int
    crc_errors: int
    seq_errors: int
    replays: int
    retrains: int
    cycles_lost: int

class RunResult:
    state: RunState
    exit_code: int
    stats: RunStats
    stream_services: int
    supersteps: List[List[SuperstepStats]]
    links: List[LinkStats]
    link_cycles_lost: int
    def superstep_array(self, ipu: int = 0) -> numpy.ndarray: ...

SUPERSTEP_DTYPE: numpy.dtype

class ConsoleLine:
    ipu: int
    tile: int
    thread: int
    text: str

def format_console_line(line: ConsoleLine) -> str: ...
def print_console_line(line: ConsoleLine) -> None: ...

class SmemBuffer:
    offset: int
    bytes: int
    board: int

class TileRange:
    def __init__(self, ipu: int, tile_first: int, tile_count: int) -> None: ...
    ipu: int
    tile_first: int
    tile_count: int
    def __hash__(self) -> int: ...

STATE_IDLE: int
STATE_READY: int
STATE_RUNNING: int
STATE_PAUSED: int
STATE_HALTED: int
STATE_STREAM_WAIT: int
STATE_ERROR: int
ERR_NONE: int
ERR_TILE_FAULT: int
ERR_EXCHANGE: int
ERR_DEADLOCK: int
ERR_SMEM_RANGE: int
ERR_SMEM_ALIGN: int
ERR_STREAM: int
ERR_DMA_HOST_ADDR: int
ERR_DMA_DESC: int
ERR_DMA_TILE: int
ERR_BOOT: int
ERR_REG: int
ERR_STATE: int
ERR_STREAM_OVERFLOW: int
ERR_BUDGET: int
ERR_INTERRUPTED: int
SRAM_BASE: int
STREAMS: int
BAR0_BYTES: int

# ---- devices -----------------------------------------------------------------------

class DeviceRef:
    info: DeviceInfo
    def open(
        self,
        *,
        use_interrupts: bool = True,
        trace_path: str = "",
        ring_entries: int = 64,
        chunk_bytes: int = 1048576,
        staging_bytes: int = 4194304,
        max_memory: Optional[int] = None,
        core_dir: str = "",
        gdb_port: Optional[int] = None,
        rtl: Optional[str] = None,
        waves: str = "",
        iss: Optional[str] = None,
    ) -> Device: ...

def enumerate(locator: str) -> List[DeviceRef]: ...
def open(
    locator: str,
    device: int = 0,
    *,
    use_interrupts: bool = True,
    trace_path: str = "",
    ring_entries: int = 64,
    chunk_bytes: int = 1048576,
    staging_bytes: int = 4194304,
    max_memory: Optional[int] = None,
    core_dir: str = "",
    gdb_port: Optional[int] = None,
    rtl: Optional[str] = None,
    waves: str = "",
    iss: Optional[str] = None,
) -> Device: ...

class RunFuture:
    def done(self) -> bool: ...
    def result(self, timeout: Optional[float] = None) -> RunResult: ...

_Fill = Callable[[memoryview], Union[int, _Buffer, None]]
_Drain = Callable[[memoryview], None]

class Device:
    info: DeviceInfo
    closed: bool
    def close(self) -> None: ...
    def __enter__(self) -> Device: ...
    def __exit__(self, *args: Any) -> None: ...
    def reset(self) -> None: ...
    def load(self, program: Union[Elf, _Path, typing.Mapping[_Range, Union[Elf, _Path]]]) -> None: ...
    def abort(self) -> None: ...
    def stats(self) -> RunStats: ...
    def state(self) -> int: ...
    def set_trace(self, path: Optional[_Path]) -> None: ...
    def set_link_faults(self, items: str) -> None: ...
    def console_lines_dropped(self) -> int: ...
    def link_stats(self) -> List[LinkStats]: ...
    @overload
    def superstep_stats(self) -> List[List[SuperstepStats]]: ...
    @overload
    def superstep_stats(self, ipu: int) -> List[SuperstepStats]: ...
    def superstep_array(self, ipu: int = 0) -> numpy.ndarray: ...
    def error_registers(self) -> DeviceErrorInfo: ...
    def read_register(self, offset: int, board: int = 0) -> int: ...
    def write_register(self, offset: int, value: int, board: int = 0) -> None: ...
    def symbol_address(self, ipu: int, tile: int, symbol: str) -> int: ...
    # memory
    def write_tile(self, ipu: int, tile: int, addr: int, data: _Buffer) -> None: ...
    def write_tiles(self, tiles: _Range, addr: int, data: _Buffer) -> None: ...
    def read_tile(
        self, ipu: int, tile: int, addr: int, count: _Count = None, dtype: _DType = "uint8", *, out: Optional[_Buffer] = None
    ) -> Any: ...
    def write_symbol(self, ipu: int, tile: int, symbol: str, data: _Buffer) -> None: ...
    def read_symbol(
        self, ipu: int, tile: int, symbol: str, count: _Count = None, dtype: _DType = "uint8", *, out: Optional[_Buffer] = None
    ) -> Any: ...
    def alloc_smem(self, bytes: int, align: int = 64, board: int = 0) -> SmemBuffer: ...
    def free_smem(self, buffer: SmemBuffer) -> None: ...
    def write_smem(self, offset: Union[int, SmemBuffer], data: _Buffer, board: Optional[int] = None) -> None: ...
    def read_smem(
        self,
        offset: Union[int, SmemBuffer],
        count: _Count = None,
        dtype: _DType = "uint8",
        *,
        out: Optional[_Buffer] = None,
        board: Optional[int] = None,
    ) -> Any: ...
    # streams and console
    def connect_h2d_stream(self, id: int, source: Union[_Buffer, _Fill], board: int = 0) -> None: ...
    def connect_d2h_stream(self, id: int, sink: Union[_Buffer, _Drain], board: int = 0) -> None: ...
    def disconnect_stream(self, id: int, board: int = 0) -> None: ...
    def d2h_stream_bytes(self, id: int, board: int = 0) -> int: ...
    def set_console(self, handler: Optional[Callable[[ConsoleLine], None]]) -> None: ...
    # runs
    def run(
        self, supersteps: int = 0, timeout: Optional[float] = None, max_cycles: int = 0, max_instructions: int = 0
    ) -> RunResult: ...
    def run_async(
        self, supersteps: int = 0, timeout: Optional[float] = None, max_cycles: int = 0, max_instructions: int = 0
    ) -> RunFuture: ...
    # tensors
    def write_tensor(self, layout: TensorLayout, data: _Buffer) -> None: ...
    def read_tensor(self, layout: TensorLayout, *, out: Optional[_Buffer] = None) -> Any: ...
    def write_per_tile(self, tiles: _Tiles, symbol: str, data: _Buffer) -> None: ...
    def dma_stats(self) -> DmaStats: ...

# ---- tensors -----------------------------------------------------------------------

class DType:
    U8: DType
    I8: DType
    U16: DType
    I16: DType
    U32: DType
    I32: DType
    U64: DType
    I64: DType
    F16: DType
    BF16: DType
    F32: DType
    F64: DType
    name: str
    value: int
    def __init__(self, value: int) -> None: ...
    def __int__(self) -> int: ...
    def __index__(self) -> int: ...

_TensorDType = Union[DType, _DType]

def dtype_size(dtype: _TensorDType) -> int: ...
def tensor_dtype(dtype: _TensorDType) -> DType: ...
def numpy_dtype(dtype: _TensorDType) -> numpy.dtype: ...

class TileId:
    def __init__(self, ipu: int, tile: int) -> None: ...
    ipu: int
    tile: int
    def __hash__(self) -> int: ...

_Tiles = Sequence[Union[TileId, Tuple[int, int]]]

def tile_range(ipu: int, first: int, count: int) -> List[TileId]: ...
def all_tiles(info: DeviceInfo) -> List[TileId]: ...

class TilePiece:
    def __init__(self, ipu: int, tile: int, offset: int, count: int) -> None: ...
    ipu: int
    tile: int
    offset: int
    count: int

class Mapping:
    @staticmethod
    def blocked_rows(tiles: _Tiles) -> Mapping: ...
    @staticmethod
    def blocked_2d(tiles: _Tiles, grid_rows: int, grid_cols: int) -> Mapping: ...
    @staticmethod
    def replicated(tiles: _Tiles) -> Mapping: ...
    @staticmethod
    def per_tile(pieces: Sequence[Union[TilePiece, Tuple[int, int, int, int]]]) -> Mapping: ...
    kind: str
    tiles: List[TileId]
    grid_rows: int
    grid_cols: int
    pieces: List[TilePiece]

class Location:
    @staticmethod
    def symbol(name: str) -> Location: ...
    @staticmethod
    def at(address: int) -> Location: ...
    symbol_name: str
    address: int

class TensorLayout:
    def __init__(self, shape: Sequence[int], dtype: _TensorDType, mapping: Mapping, location: Location) -> None: ...
    shape: Tuple[int, ...]
    dtype: DType
    mapping: Mapping
    location: Location
    elements: int
    bytes: int

class DmaDirectionStats:
    descriptors: int
    batches: int
    bytes: int

class DmaStats:
    to_device: DmaDirectionStats
    from_device: DmaDirectionStats
