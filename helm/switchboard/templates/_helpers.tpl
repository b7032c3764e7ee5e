{{/* Names, labels and checks shared by the templates. */}}

{{- define "switchboard.name" -}}
{{- default .Chart.Name .Values.nameOverride | trunc 63 | trimSuffix "-" }}
{{- end }}

{{/*
The full name of the release's resources: the release name, plus the chart name unless the release
name already holds it (so `helm install switchboard` gives "switchboard"), cut to 63 characters.
*/}}
{{- define "switchboard.fullname" -}}
{{- if .Values.fullnameOverride }}
{{- .Values.fullnameOverride | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- $name := default .Chart.Name .Values.nameOverride }}
{{- if contains $name .Release.Name }}
{{- .Release.Name | trunc 63 | trimSuffix "-" }}
{{- else }}
{{- printf "%s-%s" .Release.Name $name | trunc 63 | trimSuffix "-" }}
{{- end }}
{{- end }}
{{- end }}

{{- define "switchboard.chart" -}}
{{- printf "%s-%s" .Chart.Name .Chart.Version | replace "+" "_" | trunc 63 | trimSuffix "-" }}
{{- end }}

{{- define "switchboard.selectorLabels" -}}
app.kubernetes.io/name: {{ include "switchboard.name" . }}
app.kubernetes.io/instance: {{ .Release.Name }}
{{- end }}

{{- define "switchboard.labels" -}}
helm.sh/chart: {{ include "switchboard.chart" . }}
{{ include "switchboard.selectorLabels" . }}
app.kubernetes.io/version: {{ .Chart.AppVersion | quote }}
app.kubernetes.io/component: gateway
app.kubernetes.io/part-of: switchboard
app.kubernetes.io/managed-by: {{ .Release.Service }}
{{- end }}

{{- define "switchboard.serviceAccountName" -}}
{{- if .Values.serviceAccount.create }}
{{- default (include "switchboard.fullname" .) .Values.serviceAccount.name }}
{{- else }}
{{- default "default" .Values.serviceAccount.name }}
{{- end }}
{{- end }}

{{- define "switchboard.image" -}}
{{- if .Values.image.digest }}
{{- printf "%s@%s" .Values.image.repository .Values.image.digest }}
{{- else }}
{{- printf "%s:%s" .Values.image.repository (default .Chart.AppVersion .Values.image.tag) }}
{{- end }}
{{- end }}

{{/* Whether the pods get a Redis URL: the condition for more than one replica. */}}
{{- define "switchboard.hasRedis" -}}
{{- if or .Values.redis.url .Values.redis.existingSecret }}true{{ end }}
{{- end }}

{{/*
Values that render but would not work, refused with a message that says what to change. Called from
the Deployment, so `helm template`, `helm lint` and `helm install` all stop on them.
*/}}
{{- define "switchboard.validate" -}}
{{- $replicated := or .Values.autoscaling.enabled (gt (int .Values.replicaCount) 1) }}
{{- if and $replicated (not (include "switchboard.hasRedis" .)) }}
{{- fail "more than one replica (replicaCount > 1 or autoscaling.enabled) needs a shared Redis: set redis.url or redis.existingSecret. With the in-memory session store a session exists only on the replica that created it, and requests that reach another replica get 404." }}
{{- end }}
{{- if and .Values.autoscaling.enabled (gt (int .Values.autoscaling.minReplicas) (int .Values.autoscaling.maxReplicas)) }}
{{- fail "autoscaling.minReplicas must not exceed autoscaling.maxReplicas" }}
{{- end }}
{{- if and .Values.admin.enabled (eq (int .Values.admin.port) (int .Values.containerPort)) }}
{{- fail "admin.port must differ from containerPort: the status page and admin API have a listener of their own" }}
{{- end }}
{{- $configAdmin := .Values.config.admin | default dict }}
{{- if and .Values.admin.enabled (hasKey $configAdmin "onServerPort") (ne (toString $configAdmin.onServerPort) "false") }}
{{- fail "config.admin.onServerPort would serve the status page and admin API on the gateway's port, and so on its Service and Ingress: the chart serves them on admin.port behind a ClusterIP Service of their own. Leave it out (or set admin.enabled false)" }}
{{- end }}
{{- $server := .Values.config.server | default dict }}
{{- $drain := int (default 25 $server.shutdownTimeoutSeconds) }}
{{- if le (int .Values.terminationGracePeriodSeconds) (add (int .Values.preStopSleepSeconds) $drain) }}
{{- fail (printf "terminationGracePeriodSeconds (%d) must exceed preStopSleepSeconds (%d) + config.server.shutdownTimeoutSeconds (%d), or Kubernetes kills pods while they drain" (int .Values.terminationGracePeriodSeconds) (int .Values.preStopSleepSeconds) $drain) }}
{{- end }}
{{- end }}
