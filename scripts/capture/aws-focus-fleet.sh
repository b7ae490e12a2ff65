#!/usr/bin/env bash
# Reproduces the fixtures/json/aws/*-fleet-moto.json files (focus views,
# issue 22): the real AWS CLI against a local moto server seeded with boto3:
# two VPCs with subnets, three security groups with rules, eight instances
# of several types (Name tags, one stopped, one terminated), volumes (some
# attached, one available), IAM roles with trust policies, Lambda functions
# with environments, an S3 bucket of 30 objects. Then one describe/list call
# per command shape. Uses the test venv (scripts/test.sh builds it).
set -euo pipefail
venv=${AWS_VENV:-$HOME/.cache/tokensieve/aws-venv}
dir=${1:-fixtures/json/aws}
port=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])')
"$venv/bin/moto_server" -p "$port" >/dev/null 2>&1 &
moto=$!
trap 'kill "$moto"' EXIT
export AWS_ACCESS_KEY_ID=testing AWS_SECRET_ACCESS_KEY=testing AWS_DEFAULT_REGION=us-east-1 AWS_PAGER=
export AWS_ENDPOINT_URL="http://127.0.0.1:$port"
for _ in $(seq 100); do "$venv/bin/aws" ec2 describe-regions >/dev/null 2>&1 && break; sleep 0.1; done
"$venv/bin/python" - <<'PY'
import io, json, zipfile
import boto3
ec2, iam, lam, s3 = (boto3.client(s) for s in ("ec2", "iam", "lambda", "s3"))
def tags(kind, **kv):
    return [{"ResourceType": kind, "Tags": [{"Key": k, "Value": v} for k, v in kv.items()]}]
vpcs = {}
for name, cidr in (("shop-prod", "10.20.0.0/16"), ("shop-staging", "10.30.0.0/16")):
    vpcs[name] = ec2.create_vpc(CidrBlock=cidr, TagSpecifications=tags("vpc", Name=name, team="shop"))["Vpc"]["VpcId"]
subnets = {}
for vpc, cidr, az, name in (("shop-prod", "10.20.1.0/24", "us-east-1a", "prod-web-a"),
                            ("shop-prod", "10.20.2.0/24", "us-east-1b", "prod-web-b"),
                            ("shop-prod", "10.20.10.0/23", "us-east-1a", "prod-db-a"),
                            ("shop-staging", "10.30.1.0/24", "us-east-1c", "staging-c")):
    subnets[name] = ec2.create_subnet(VpcId=vpcs[vpc], CidrBlock=cidr, AvailabilityZone=az,
                                      TagSpecifications=tags("subnet", Name=name))["Subnet"]["SubnetId"]
ec2.modify_subnet_attribute(SubnetId=subnets["prod-web-a"], MapPublicIpOnLaunch={"Value": True})
sgs = {}
for name, vpc, desc, rules in (
        ("web-public", "shop-prod", "HTTPS from anywhere", [(443, 443, "0.0.0.0/0", "public HTTPS"), (80, 80, "0.0.0.0/0", "redirect to HTTPS")]),
        ("db-internal", "shop-prod", "Postgres from the web tier", [(5432, 5432, "10.20.0.0/16", "app subnets")]),
        ("bastion", "shop-staging", "SSH from the office", [(22, 22, "203.0.113.0/24", "office VPN")])):
    gid = ec2.create_security_group(GroupName=name, Description=desc, VpcId=vpcs[vpc],
                                    TagSpecifications=tags("security-group", Name=name))["GroupId"]
    sgs[name] = gid
    ec2.authorize_security_group_ingress(GroupId=gid, IpPermissions=[
        {"IpProtocol": "tcp", "FromPort": a, "ToPort": b, "IpRanges": [{"CidrIp": c, "Description": d}]} for a, b, c, d in rules])
ami = ec2.describe_images(Owners=["amazon"])["Images"][0]["ImageId"]
inst = {}
for name, itype, subnet, sg in (("web-1", "t3.small", "prod-web-a", "web-public"), ("web-2", "t3.small", "prod-web-b", "web-public"),
                                ("web-3", "t3.small", "prod-web-a", "web-public"), ("db-primary", "r6g.large", "prod-db-a", "db-internal"),
                                ("db-replica", "r6g.large", "prod-db-a", "db-internal"), ("worker-1", "c6i.xlarge", "prod-web-b", "web-public"),
                                ("bastion", "t3.micro", "staging-c", "bastion"), ("old-batch", "m5.large", "staging-c", "bastion")):
    r = ec2.run_instances(ImageId=ami, MinCount=1, MaxCount=1, InstanceType=itype, SubnetId=subnets[subnet], SecurityGroupIds=[sgs[sg]],
                          TagSpecifications=tags("instance", Name=name, env="prod" if subnet.startswith("prod") else "staging"))
    inst[name] = r["Instances"][0]["InstanceId"]
ec2.stop_instances(InstanceIds=[inst["worker-1"]])
ec2.terminate_instances(InstanceIds=[inst["old-batch"]])
for size, az, name, attach in ((100, "us-east-1a", "db-data", "db-primary"), (100, "us-east-1a", "db-replica-data", "db-replica"),
                               (20, "us-east-1b", "scratch", None), (500, "us-east-1a", "archive", None)):
    v = ec2.create_volume(Size=size, AvailabilityZone=az, VolumeType="gp3", TagSpecifications=tags("volume", Name=name))["VolumeId"]
    if attach:
        ec2.attach_volume(VolumeId=v, InstanceId=inst[attach], Device="/dev/sdf")
trust = lambda svc: json.dumps({"Version": "2012-10-17", "Statement": [{"Effect": "Allow", "Principal": {"Service": svc}, "Action": "sts:AssumeRole"}]})
for name, svc, desc in (("orders-api", "ecs-tasks.amazonaws.com", "ECS: the orders API"), ("invoice-render", "lambda.amazonaws.com", "Lambda: renders invoices"),
                        ("nightly-etl", "glue.amazonaws.com", "Glue: nightly export"), ("ci-release", "codebuild.amazonaws.com", "CodeBuild: release pipeline")):
    iam.create_role(RoleName=name, Path="/app/", AssumeRolePolicyDocument=trust(svc), Description=desc, MaxSessionDuration=3600)
buf = io.BytesIO()
with zipfile.ZipFile(buf, "w") as z:
    z.writestr("index.py", "def handler(e, c):\n    return e\n")
role = iam.get_role(RoleName="invoice-render")["Role"]["Arn"]
for name, rt, mem, env in (("invoice-render", "python3.12", 1024, {"BUCKET": "invoices"}), ("order-events", "nodejs20.x", 256, {"QUEUE": "orders"}),
                           ("price-sync", "python3.11", 512, {}), ("report-pdf", "java21", 2048, {"FONT_DIR": "/opt/fonts", "DPI": "300"})):
    kw = {"Environment": {"Variables": env}} if env else {}
    lam.create_function(FunctionName=name, Runtime=rt, Role=role, Handler="index.handler", Code={"ZipFile": buf.getvalue()},
                        MemorySize=mem, Timeout=30, Description=f"{name} service", **kw)
s3.create_bucket(Bucket="shop-assets")
for i in range(30):
    s3.put_object(Bucket="shop-assets", Key=f"img/{'products' if i % 3 else 'banners'}/{i:03d}.jpg", Body=b"x" * (1000 + 37 * i))
PY
cap() { local f="$dir/$1-fleet-moto.json"; shift; "$venv/bin/aws" "$@" >"$f"; echo "$f: $(wc -c <"$f") bytes"; }
cap ec2-describe-instances ec2 describe-instances
cap ec2-describe-security-groups ec2 describe-security-groups
cap ec2-describe-volumes ec2 describe-volumes
cap ec2-describe-vpcs ec2 describe-vpcs
cap ec2-describe-subnets ec2 describe-subnets
cap iam-list-roles iam list-roles
cap lambda-list-functions lambda list-functions
cap s3api-list-objects-v2 s3api list-objects-v2 --bucket shop-assets
"$venv/bin/aws" --version
