{{/* The objects' name: fixed, as in deploy/base, so Alertmanager's URL, the Lease and the Secrets keep theirs. */}}
{{- define "gpu-remediator.name" -}}gpu-remediator{{- end -}}

{{/* Labels on every object: deploy/base's part-of, the selector label, and Helm's own. */}}
{{- define "gpu-remediator.labels" -}}
app.kubernetes.io/name: gpu-remediator
app.kubernetes.io/part-of: gpu-remediator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{/* Labels on objects that select nothing of ours (rules, monitors, the dashboard): part-of and Helm's. */}}
{{- define "gpu-remediator.partOfLabels" -}}
app.kubernetes.io/part-of: gpu-remediator
app.kubernetes.io/instance: {{ .Release.Name }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/managed-by: {{ .Release.Service }}
helm.sh/chart: {{ printf "%s-%s" .Chart.Name .Chart.Version }}
{{- end -}}

{{- define "gpu-remediator.selectorLabels" -}}
app.kubernetes.io/name: gpu-remediator
{{- end -}}

{{/* The cloud section of the config, or an empty map. */}}
{{- define "gpu-remediator.cloud" -}}
{{- toYaml (default (dict) .Values.config.cloud) -}}
{{- end -}}

{{/*
The playbook files, name -> content: the shipped ones, the replace provider's in place of the AWS ones, then
.Values.playbooks.files.
*/}}
{{- define "gpu-remediator.playbooks" -}}
{{- $cloud := fromYaml (include "gpu-remediator.cloud" .) -}}
{{- $files := dict -}}
{{- if .Values.playbooks.shipped -}}
{{- range $path, $_ := .Files.Glob "files/playbooks/*.yaml" -}}
{{- $_ := set $files (base $path) ($.Files.Get $path) -}}
{{- end -}}
{{- $provider := "" -}}
{{- if hasKey $cloud "karpenter" -}}{{- $provider = "karpenter" -}}
{{- else if hasKey $cloud "cluster_api" -}}{{- $provider = "cluster-api" -}}{{- end -}}
{{- if $provider -}}
{{- range $path, $_ := .Files.Glob (printf "files/playbooks-%s/*.yaml" $provider) -}}
{{- $_ := set $files (base $path) ($.Files.Get $path) -}}
{{- end -}}
{{- end -}}
{{- end -}}
{{- range $name, $content := .Values.playbooks.files -}}
{{- $_ := set $files $name $content -}}
{{- end -}}
{{- toYaml $files -}}
{{- end -}}
