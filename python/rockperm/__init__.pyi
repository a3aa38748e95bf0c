# Type stubs of rockperm (the module's docstrings say what each argument means).
from os import PathLike
from typing import Any, Callable, Dict, List, Literal, Mapping, Optional, Sequence, Tuple, Union, overload

import numpy as np
import numpy.typing as npt

__version__: str

class Error(Exception): ...
class InputError(Error, ValueError): ...
class InvalidPhysics(Error): ...
class Diverged(Error): ...
class OutputError(Error): ...
class RuntimeFailure(Error): ...

class RockpermWarning(UserWarning):
    code: str
    def __init__(self, message: str, code: str = ...) -> None: ...

class Result:
    @property
    def status(self) -> str: ...
    @property
    def message(self) -> str: ...
    @property
    def k_mD(self) -> float: ...
    @property
    def k_m2(self) -> float: ...
    @property
    def k_lattice(self) -> float: ...
    @property
    def k_error(self) -> float: ...
    @property
    def k_error_mD(self) -> float: ...
    @property
    def formation_factor(self) -> float: ...
    @property
    def formation_factor_error(self) -> float: ...
    @property
    def tortuosity_factor(self) -> float: ...
    @property
    def cementation_exponent(self) -> float: ...
    @property
    def porosity(self) -> float: ...
    @property
    def total_porosity(self) -> float: ...
    @property
    def connected_porosity(self) -> float: ...
    @property
    def steps(self) -> int: ...
    @property
    def report_path(self) -> Optional[str]: ...
    @property
    def warnings(self) -> List[Tuple[str, str]]: ...
    @property
    def tensor(self) -> Optional[npt.NDArray[np.float64]]: ...
    def velocity(self) -> npt.NDArray[np.float32]: ...
    def pressure(self) -> npt.NDArray[np.float32]: ...
    def phases(self, curve: str, point: int) -> npt.NDArray[np.uint8]: ...
    def to_dict(self) -> Dict[str, Any]: ...

class CapillaryCurve:
    pc_Pa: npt.NDArray[np.float64]
    radius_um: npt.NDArray[np.float64]
    saturation: npt.NDArray[np.float64]
    leverett_j: npt.NDArray[np.float64]
    def __len__(self) -> int: ...

class FlowPoint:
    krw: float
    krn: float
    krw_error: float
    krn_error: float
    converged: bool
    saturation: float
    saturation_start: float
    capillary_number: float
    viscosity_ratio: float
    wetting_spans: bool
    nonwetting_spans: bool
    flux_spread_wetting: float
    flux_spread_nonwetting: float
    fastest_lattice_speed: float
    flags: List[str]
    steps: int
    seconds: float
    backend: str
    note: str
    start: str

class DisplacedCurve:
    pc_Pa: npt.NDArray[np.float64]
    saturation: npt.NDArray[np.float64]
    saturation_quasi_static: npt.NDArray[np.float64]
    capillary_number: npt.NDArray[np.float64]
    settled: npt.NDArray[np.bool_]
    steps: npt.NDArray[np.int64]
    notes: List[str]
    def __len__(self) -> int: ...

class RelPermPoint:
    curve: str
    point: int
    saturation: float
    saturation_asked: float
    pc_Pa: float
    krw: float
    krn: float
    krw_error: float
    krn_error: float
    wetting_spans: bool
    nonwetting_spans: bool
    converged: bool
    note: str
    flow: Optional[FlowPoint]

class TwoPhase:
    result: Result
    drainage: CapillaryCurve
    imbibition: Optional[CapillaryCurve]
    entry_pressure_Pa: float
    breakthrough_pressure_Pa: float
    residual_wetting: float
    residual_nonwetting: float
    relperm: List[RelPermPoint]
    k_mD: float
    sigma_N_per_m: float
    theta_deg: float
    wall_wetting: str
    note: str
    displaced_drainage: Optional[DisplacedCurve]
    displaced_imbibition: Optional[DisplacedCurve]
    displacement_note: str
    displacement_flags: List[str]
    def phases(self, curve: str, point: int) -> npt.NDArray[np.uint8]: ...

Axis = Union[Literal["x", "y", "z", "all"], int]
Progress = Union[bool, None, Callable[[int, float, float, float], Any]]

def permeability(mask: npt.ArrayLike, voxel_size_um: float, axis: Axis = ..., pore_labels: Optional[str] = ...,
                 grey_labels: Optional[str] = ..., inlet_outlet: str = ..., lateral: str = ..., backend: str = ...,
                 storage: str = ..., progress: Progress = ..., fields: bool = ...,
                 output_dir: Union[str, PathLike[str], None] = ..., overwrite: bool = ...,
                 formation_factor: bool = ..., options: Optional[Mapping[str, Any]] = ...) -> Result: ...

def formation_factor(mask: npt.ArrayLike, voxel_size_um: float, axis: Axis = ..., pore_labels: Optional[str] = ...,
                     grey_labels: Optional[str] = ..., inlet_outlet: str = ..., lateral: str = ..., backend: str = ...,
                     output_dir: Union[str, PathLike[str], None] = ..., overwrite: bool = ...,
                     options: Optional[Mapping[str, Any]] = ...) -> Result: ...

def capillary_pressure(mask: npt.ArrayLike, voxel_size_um: float, axis: Axis = ..., curves: str = ...,
                       fluids: str = ..., sigma: Optional[float] = ..., theta: Optional[float] = ...,
                       entry: Optional[str] = ..., trapping: Optional[bool] = ...,
                       pressures: Optional[Sequence[float]] = ..., count: int = ..., phases: bool = ...,
                       pore_labels: Optional[str] = ..., inlet_outlet: str = ..., lateral: str = ...,
                       backend: str = ..., progress: Progress = ...,
                       output_dir: Union[str, PathLike[str], None] = ..., overwrite: bool = ...,
                       displacement: bool = ..., options: Optional[Mapping[str, Any]] = ...) -> TwoPhase: ...

def relative_permeability(mask: npt.ArrayLike, voxel_size_um: float, saturations: Union[int, Sequence[float]] = ...,
                          axis: Axis = ..., curves: str = ..., fluids: str = ..., sigma: Optional[float] = ...,
                          theta: Optional[float] = ..., entry: Optional[str] = ..., trapping: Optional[bool] = ...,
                          pressures: Optional[Sequence[float]] = ..., count: int = ..., phases: bool = ...,
                          pore_labels: Optional[str] = ..., inlet_outlet: str = ..., lateral: str = ...,
                          backend: str = ..., progress: Progress = ...,
                          output_dir: Union[str, PathLike[str], None] = ..., overwrite: bool = ...,
                          flow: bool = ..., viscosity_ratio: Optional[float] = ...,
                          capillary_number: Optional[float] = ...,
                          options: Optional[Mapping[str, Any]] = ...) -> TwoPhase: ...

class Forchheimer:
    result: Result
    reynolds: npt.NDArray[np.float64]
    reynolds_k: npt.NDArray[np.float64]
    rho_q_over_mu: npt.NDArray[np.float64]
    k_app_mD: npt.NDArray[np.float64]
    k_app_over_k: npt.NDArray[np.float64]
    k_app_error: npt.NDArray[np.float64]
    k_app_lattice_error: npt.NDArray[np.float64]
    mach: npt.NDArray[np.float64]
    tau: npt.NDArray[np.float64]
    steps: npt.NDArray[np.int64]
    converged: npt.NDArray[np.bool_]
    k_mD: float
    pore_diameter_um: float
    fitted: bool
    fit_k_mD: float
    beta_per_m: float
    c_F: float
    fit_residual: float
    reynolds_1pct: float
    reynolds_10pct: float
    note: str
    def __init__(self, result: Result) -> None: ...

def forchheimer(mask: npt.ArrayLike, voxel_size_um: float, max_reynolds: float = ..., points: int = ...,
                min_reynolds: Optional[float] = ..., axis: Axis = ..., pore_labels: Optional[str] = ...,
                inlet_outlet: str = ..., lateral: str = ..., backend: str = ..., progress: Progress = ...,
                output_dir: Union[str, PathLike[str], None] = ..., overwrite: bool = ...,
                options: Optional[Mapping[str, Any]] = ...) -> Forchheimer: ...

def plan(mask: npt.ArrayLike, voxel_size_um: float, axis: Axis = ..., pore_labels: Optional[str] = ...,
         grey_labels: Optional[str] = ..., inlet_outlet: str = ..., lateral: str = ..., ranks: int = ...,
         gpu_memory_gib: Sequence[float] = ..., options: Optional[Mapping[str, Any]] = ...) -> Dict[str, Any]: ...

@overload
def read(path: Union[str, PathLike[str]], with_voxel_size: Literal[False] = ..., **input_options: Any) -> npt.NDArray[np.bool_]: ...
@overload
def read(path: Union[str, PathLike[str]], with_voxel_size: Literal[True], **input_options: Any) -> Tuple[npt.NDArray[np.bool_], float]: ...
