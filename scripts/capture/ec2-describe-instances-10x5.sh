#!/usr/bin/env bash
# Reproduces fixtures/json/aws/ec2-describe-instances-10x5-moto.json: the real
# AWS CLI against a local moto server, ten `run-instances --count 5` calls
# (ten reservations of five instances each), then describe-instances.
# Uses the test venv (scripts/test.sh builds it).
set -euo pipefail
venv=${AWS_VENV:-$HOME/.cache/tokensieve/aws-venv}
out=${1:-fixtures/json/aws/ec2-describe-instances-10x5-moto.json}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$venv/bin/moto_server" -p "$port" >/dev/null 2>&1 &
moto=$!
trap 'kill "$moto"' EXIT
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1
aws() { "$venv/bin/aws" --endpoint-url "http://127.0.0.1:$port" "$@"; }
for _ in $(seq 50); do aws ec2 describe-regions >/dev/null 2>&1 && break; sleep 0.1; done
ami=$(aws ec2 describe-images --owners amazon --query 'Images[0].ImageId' --output text)
for team in web api batch cache search billing auth media queue metrics; do
    aws ec2 run-instances --image-id "$ami" --count 5 --instance-type t3.micro \
        --tag-specifications "ResourceType=instance,Tags=[{Key=team,Value=$team},{Key=env,Value=prod}]" >/dev/null
done
aws ec2 describe-instances >"$out"
echo "$out: $(wc -c <"$out") bytes, $("$venv/bin/aws" --version 2>&1 | cut -d' ' -f1)"
