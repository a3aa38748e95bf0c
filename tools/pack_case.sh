# shellcheck shell=bash
# Sourced by tools/trajectory_study.sh, tools/stop_study.sh and tools/device_stop_study.sh: one synthetic pack case, the same for
# all (so a stop is compared with the long run of the very same sample).
# A case is N:POROSITY:MODE[:SEED[:RADIUS[:VUGS:VUG_RADIUS[:SHELL:SHELL_POROSITY]]]] (seed 3, radius N/16
# by default); MODE is buffer, mirror or periodic (buffer and mirror with sealed lateral faces); VUGS > 0
# opens that share of the volume as vugs of VUG_RADIUS joined only through the pack's finer pores, and
# SHELL wraps each in a shell that thick of a tighter pack (rockperm-make-pack --vugs, --vug-shell: a
# multi-scale medium, issue 54). rockperm-make-pack on PATH.
#   pack_case CASE PREFIX   sets case_name and case_dir (/tmp/PREFIX_NAME) and makes case_dir/pack.raw once
#   run_case BINARY OUTDIR [OPTIONS...]   runs the case at 5 um voxels, fields off, into OUTDIR
#   kept_reference CASE   prints the case's tolerance-1e-6 k kept in tools/stop_cases.txt (nothing if none)
pack_case() {
  local n phi mode seed radius vugs vug_radius shell shell_phi vug_args=() suffix=""
  IFS=: read -r n phi mode seed radius vugs vug_radius shell shell_phi <<<"$1"
  seed=${seed:-3} radius=${radius:-$((n / 16))}
  if [ -n "${vugs:-}" ]; then
    vug_args=(--vugs "$vugs" --vug-radius "${vug_radius:?VUG_RADIUS after VUGS}")
    suffix="_v${vugs}_R${vug_radius}"
    if [ -n "${shell:-}" ]; then
      vug_args+=(--vug-shell "$shell" --shell-porosity "${shell_phi:?SHELL_POROSITY after SHELL}")
      suffix+="_sh${shell}_${shell_phi}"
    fi
  fi
  case_name="n${n}_p${phi}_${mode}_s${seed}_r${radius}${suffix}" case_dir=/tmp/$2_$case_name
  case_dims="$n $n $n" case_mode=$mode case_lateral=sealed
  [ "$mode" = periodic ] && case_lateral=periodic
  mkdir -p "$case_dir"
  [ -s "$case_dir/pack.raw" ] || rockperm-make-pack --dims "$case_dims" --porosity "$phi" --radius "$radius" \
    --seed "$seed" "${vug_args[@]}" --out "$case_dir/pack.raw" >/dev/null
}

run_case() {
  local binary=$1 out=$2
  shift 2
  "$binary" run --input.file "$case_dir/pack.raw" --input.dims "$case_dims" --input.voxel_size_um 5 --output.fields off \
    --lbm.inlet_outlet="$case_mode" --lbm.lateral="$case_lateral" --overwrite --output.dir "$out" "$@"
}

kept_reference() {
  awk -v c="$1" '$1 == c && $2 != "-" {print $2}' "${BASH_SOURCE[0]%/*}/stop_cases.txt"
}
