<#
.SYNOPSIS
    Checks on a real Windows machine what Wine cannot show of cpupolicyd.

.DESCRIPTION
    Run from an elevated Windows PowerShell (5.1, powershell.exe) after
    "cpupolicyd.exe --install" and "sc start cpupolicyd":

        powershell -ExecutionPolicy Bypass -File packaging\windows\check.ps1 -Ctl .\cpupolicyctl.exe

    It builds a small test program (a .NET console program: a few sleeping
    threads, and one more created half a second after its start), copies it
    under several names, writes its own rule file into
    %ProgramData%\cpupolicy\rules.d, reloads the daemon, and prints one line
    per check: PASS, FAIL or SKIP, with the reason. Whatever happens, the
    rule file, the test programs and their folders are removed at the end
    and the daemon reloaded. The exit status is 1 when any check failed, 2
    when the script could not run at all, 0 otherwise.

    The checks: the service runs, with only the expected privileges in its
    token; discovery is ETW (the daemon's log) and how long a test program
    waits for its class; the start to class latency over 50 starts, p50 and
    p99 from each process's creation time (unrun: not yet run on a real
    machine); every thread's priority, a thread created later
    included; CPU Sets by EfficiencyClass on a hybrid CPU; threads over
    several processor groups; the EcoQoS opt-out read back; the Image File
    Execution Options PerfOptions of a lowering rule, present and then gone
    with its rule; a same-named program in another folder left alone (and
    put back where PerfOptions lowered it at creation); parking = "off"
    holding CPMINCORES and CPMINCORES1 at 100 % (AC and DC) while its
    program runs and the originals back after it exits; the saturation
    check's report on this machine (every processor of every group); a rule
    file Users may write, and one Users own, refused by check and by a
    reload that keeps the rules in force, and all of %ProgramData%\cpupolicy
    Administrators' or SYSTEM's after the install; the control pipe owned by
    Administrators; a second daemon kept out by the lock in the state
    directory; and, the service stopped meanwhile, the pipe's name taken by
    a program of this user without its administrator rights (runas
    /trustlevel:0x20000): the service starts all the same and names the
    holder in its log, cpupolicyctl refuses to talk to the holder, and once
    it lets go the service answers on the pipe.

    Issue 22 adds (UNRUN: written without a Windows machine at hand, no
    real machine has run these yet; until one does they prove nothing):
    the group cure on a machine of several groups (Server 2019: a pool
    started in group 0 dealt over the groups in proportion, each thread's
    group affinity read; Server 2022: left as Windows spreads it unless
    the process narrowed itself to group 0, which the rule undoes); the
    install's ACLs (no write or delete for Users, Authenticated Users,
    Everyone or Interactive on %ProgramData%\cpupolicy and its files);
    and three steps of their own: -Step before-reboot (parking held off,
    the originals recorded, the service's process killed; then reboot)
    and -Step after-reboot (CPMINCORES and CPMINCORES1, AC and DC, back to
    the originals), and -Step uninstall (--uninstall gives the power
    settings back with their holder still running; the service is gone
    afterwards). Pipe squatting is the pipe taken check above.

    Restraint adds (UNRUN as well): the probe's lateness with restraint
    paused and resumed ("cpupolicyctl restraint pause|resume"; SKIP where
    the service's [restraint] is not enabled = true): a frame task in
    this script's process (every 16.7 ms, 11 ms of CPU work calibrated on
    the idle machine; exempt from restraint as the foreground would be)
    runs -FrameSeconds; -FrameHogAt seconds in, two hog programs at the
    normal class start with as many spinning threads as there are
    processors each (2x the CPUs in all); the frames missed and the p99
    lateness after the hogs started are reported for both runs, and a
    FAIL is a restraint that missed more frames than none did, or that
    never lowered a hog (its class read while it runs).

    The per-user agent adds (UNRUN as well; Wine shows the window, the
    agent and the daemon's answer, tests/windows/restraint.sh, but not a
    logon, nor Windows' foreground lock): the MSI's Run value
    (HKLM\Software\Microsoft\Windows\CurrentVersion\Run, "cpupolicy
    agent") naming the installed cpupolicyctl.exe agent; that agent
    running in this session when the user logged on after the install;
    and a hog with a window of its own (as many spinning threads as there
    are processors) in the foreground: with the logon agent it is never
    lowered, without it it is lowered first; then "cpupolicyctl agent
    --once" tells the daemon, which gives it the normal class back and
    whose explain says it is in the foreground, declared over cpupolicyctl
    agent (SKIP where [restraint] is not enabled = true, or where Windows
    keeps the foreground from the hog's window).
#>
#Requires -Version 5.1
[CmdletBinding()]
param(
    # cpupolicyctl.exe; by default the one in the current folder.
    [string]$Ctl = (Join-Path (Get-Location) 'cpupolicyctl.exe'),
    [string]$Service = 'cpupolicyd',
    [string]$DataDir = (Join-Path $env:ProgramData 'cpupolicy'),
    # Privileges the service may hold; any other is a FAIL.
    [string[]]$AllowedPrivileges = @('SeDebugPrivilege',
        'SeIncreaseBasePriorityPrivilege', 'SeChangeNotifyPrivilege'),
    # Log lines that say which discovery the daemon uses (the last wins).
    [string]$EtwLogPattern = 'ETW',
    [string]$PollLogPattern = 'poll',
    # How long a start may wait for its class before it is a FAIL.
    [int]$DeadlineMs = 2000,
    [int]$Starts = 5,
    # all: every check but the three below. before-reboot: parking held,
    # the originals recorded, the service killed; reboot, then
    # after-reboot: the originals back. uninstall: --uninstall gives the
    # power settings back (and removes the service: run it last).
    [ValidateSet('all', 'before-reboot', 'after-reboot', 'uninstall')]
    [string]$Step = 'all',
    # Check-Latency: starts measured, and the p99 a PASS needs.
    [int]$LatencyStarts = 50,
    [int]$LatencyLimitMs = 100,
    # Check-Restraint: each run's length, and when the hogs start in it.
    [int]$FrameSeconds = 12,
    [int]$FrameHogAt = 4
)

Set-StrictMode -Version 2
$ErrorActionPreference = 'Stop'

$script:failures = 0
$script:ctlExit = 0
$script:perf = $null
$script:gotIds = $null
$script:gotMasks = $null
# To the console, not the pipeline: the functions below return values.
function Report([string]$result, [string]$item, [string]$why) {
    if ($result -eq 'FAIL') { $script:failures++ }
    Write-Host ('{0,-4}  {1}: {2}' -f $result, $item, $why)
}

# cpupolicyctl's output as one string, its exit status in $script:ctlExit.
# Windows PowerShell turns a native program's stderr into errors, which
# 'Stop' would make fatal: not here.
function Invoke-Ctl {
    $ErrorActionPreference = 'Continue'
    $out = & $Ctl @args 2>&1 | ForEach-Object { "$_" }
    $script:ctlExit = $LASTEXITCODE
    ($out -join "`n")
}

function Die([string]$why) {
    Write-Error "check.ps1: $why" -ErrorAction Continue
    exit 2
}

if ($PSVersionTable.PSEdition -ne 'Desktop') {
    Die 'run it with Windows PowerShell 5.1 (powershell.exe): it compiles its test program with Add-Type -OutputType ConsoleApplication'
}
if (-not [Environment]::Is64BitProcess) {
    Die 'run the 64-bit PowerShell: a 32-bit one sees another view of the registry'
}
$principal = New-Object Security.Principal.WindowsPrincipal(
    [Security.Principal.WindowsIdentity]::GetCurrent())
if (-not $principal.IsInRole([Security.Principal.WindowsBuiltInRole]::Administrator)) {
    Die 'run it from an elevated prompt (as Administrator)'
}
if (-not (Test-Path -LiteralPath $Ctl)) {
    Die "no cpupolicyctl at $Ctl (give -Ctl PATH)"
}
$Ctl = (Resolve-Path -LiteralPath $Ctl).Path

Add-Type -TypeDefinition @'
using System;
using System.Collections.Generic;
using System.Runtime.InteropServices;
using System.Text;

namespace CpuPolicyCheck
{
    [StructLayout(LayoutKind.Sequential)]
    public struct GROUP_AFFINITY
    {
        public UIntPtr Mask;
        public ushort Group;
        public ushort Reserved0, Reserved1, Reserved2;
    }

    [StructLayout(LayoutKind.Sequential)]
    public struct PROCESS_POWER_THROTTLING_STATE
    {
        public uint Version, ControlMask, StateMask;
    }

    public class CpuSet
    {
        public uint Id;
        public ushort Group;
        public byte Processor, Core, Efficiency;
    }

    public static class Native
    {
        public const uint PROCESS_QUERY_LIMITED_INFORMATION = 0x1000;
        public const uint THREAD_QUERY_LIMITED_INFORMATION = 0x0800;
        public const uint TOKEN_QUERY = 0x0008;
        public const int TokenPrivileges = 3;
        public const int ProcessPowerThrottling = 4;
        public const uint SE_PRIVILEGE_ENABLED = 0x2;

        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern IntPtr OpenProcess(uint access, bool inherit, int pid);
        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern IntPtr OpenThread(uint access, bool inherit, int tid);
        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern bool CloseHandle(IntPtr handle);
        [DllImport("advapi32.dll", SetLastError = true)]
        public static extern bool OpenProcessToken(IntPtr process, uint access, out IntPtr token);
        [DllImport("advapi32.dll", SetLastError = true)]
        public static extern bool GetTokenInformation(IntPtr token, int infoClass,
            IntPtr info, int length, out int returned);
        [DllImport("advapi32.dll", SetLastError = true, CharSet = CharSet.Unicode)]
        public static extern bool LookupPrivilegeNameW(string system, ref long luid,
            StringBuilder name, ref int length);
        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern bool GetSystemCpuSetInformation(IntPtr info, uint length,
            out uint returned, IntPtr process, uint flags);
        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern bool GetProcessDefaultCpuSets(IntPtr process,
            [Out] uint[] ids, uint count, out uint required);
        // Windows 11 and Server 2022 on; bound at the first call only.
        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern bool GetProcessDefaultCpuSetMasks(IntPtr process,
            [Out] GROUP_AFFINITY[] masks, ushort count, out ushort required);
        [DllImport("kernel32.dll")]
        public static extern ushort GetActiveProcessorGroupCount();
        [DllImport("kernel32.dll")]
        public static extern uint GetActiveProcessorCount(ushort group);
        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern bool GetThreadGroupAffinity(IntPtr thread,
            out GROUP_AFFINITY affinity);
        [DllImport("kernel32.dll", SetLastError = true)]
        public static extern bool GetProcessInformation(IntPtr process, int infoClass,
            ref PROCESS_POWER_THROTTLING_STATE info, uint size);

        // "name" or "name (enabled)" for each privilege the process's token
        // holds (removed ones are not listed at all); null and error set when
        // the token cannot be read.
        public static string[] Privileges(int pid, out int error)
        {
            List<string> names = new List<string>();
            IntPtr process = OpenProcess(PROCESS_QUERY_LIMITED_INFORMATION, false, pid);
            IntPtr token = IntPtr.Zero, buffer = IntPtr.Zero;
            int length;

            error = 0;
            if (process == IntPtr.Zero) {
                error = Marshal.GetLastWin32Error();
                return null;
            }
            try {
                if (!OpenProcessToken(process, TOKEN_QUERY, out token)) {
                    error = Marshal.GetLastWin32Error();
                    return null;
                }
                GetTokenInformation(token, TokenPrivileges, IntPtr.Zero, 0, out length);
                buffer = Marshal.AllocHGlobal(length);
                if (!GetTokenInformation(token, TokenPrivileges, buffer, length, out length)) {
                    error = Marshal.GetLastWin32Error();
                    return null;
                }
                // TOKEN_PRIVILEGES: a DWORD count, then LUID_AND_ATTRIBUTES of
                // 12 bytes each (an 8-byte LUID, then its attributes).
                int count = Marshal.ReadInt32(buffer, 0);
                for (int i = 0; i < count; i++) {
                    long luid = Marshal.ReadInt64(buffer, 4 + i * 12);
                    uint attributes = (uint)Marshal.ReadInt32(buffer, 4 + i * 12 + 8);
                    StringBuilder name = new StringBuilder(128);
                    int size = name.Capacity;

                    if (!LookupPrivilegeNameW(null, ref luid, name, ref size))
                        name = new StringBuilder("LUID " + luid);
                    names.Add(name.ToString() +
                        ((attributes & SE_PRIVILEGE_ENABLED) != 0 ? " (enabled)" : ""));
                }
            } finally {
                if (buffer != IntPtr.Zero) Marshal.FreeHGlobal(buffer);
                if (token != IntPtr.Zero) CloseHandle(token);
                CloseHandle(process);
            }
            return names.ToArray();
        }

        // SYSTEM_CPU_SET_INFORMATION entries: Size, Type (0: a CPU set),
        // then Id at 8, Group at 12, LogicalProcessorIndex at 14,
        // CoreIndex at 15, LastLevelCacheIndex at 16, NumaNodeIndex at 17,
        // EfficiencyClass at 18.
        public static List<CpuSet> CpuSets(out int error)
        {
            List<CpuSet> sets = new List<CpuSet>();
            uint length = 0;
            IntPtr buffer;

            error = 0;
            GetSystemCpuSetInformation(IntPtr.Zero, 0, out length, IntPtr.Zero, 0);
            if (length == 0) {
                error = Marshal.GetLastWin32Error();
                return null;
            }
            buffer = Marshal.AllocHGlobal((int)length);
            try {
                if (!GetSystemCpuSetInformation(buffer, length, out length, IntPtr.Zero, 0)) {
                    error = Marshal.GetLastWin32Error();
                    return null;
                }
                for (int offset = 0; offset < (int)length;) {
                    int size = Marshal.ReadInt32(buffer, offset);
                    int type = Marshal.ReadInt32(buffer, offset + 4);

                    if (size <= 0)
                        break;
                    if (type == 0) {
                        CpuSet s = new CpuSet();
                        s.Id = (uint)Marshal.ReadInt32(buffer, offset + 8);
                        s.Group = (ushort)Marshal.ReadInt16(buffer, offset + 12);
                        s.Processor = Marshal.ReadByte(buffer, offset + 14);
                        s.Core = Marshal.ReadByte(buffer, offset + 15);
                        s.Efficiency = Marshal.ReadByte(buffer, offset + 18);
                        sets.Add(s);
                    }
                    offset += size;
                }
            } finally {
                Marshal.FreeHGlobal(buffer);
            }
            return sets;
        }

        // The process's default CPU set ids (none: it has no default set).
        public static uint[] ProcessCpuSets(IntPtr process, out int error)
        {
            uint required = 0;
            uint[] ids;

            error = 0;
            if (GetProcessDefaultCpuSets(process, null, 0, out required))
                return new uint[0];
            error = Marshal.GetLastWin32Error();
            if (error != 122) // ERROR_INSUFFICIENT_BUFFER
                return null;
            ids = new uint[required];
            if (!GetProcessDefaultCpuSets(process, ids, required, out required)) {
                error = Marshal.GetLastWin32Error();
                return null;
            }
            error = 0;
            return ids;
        }

        // The process's default CPU set masks, one per group; null with
        // error -1 where Windows has no such call.
        public static GROUP_AFFINITY[] ProcessCpuSetMasks(IntPtr process, out int error)
        {
            ushort required = 0;
            GROUP_AFFINITY[] masks;

            error = 0;
            try {
                if (GetProcessDefaultCpuSetMasks(process, null, 0, out required))
                    return new GROUP_AFFINITY[0];
            } catch (EntryPointNotFoundException) {
                error = -1;
                return null;
            }
            error = Marshal.GetLastWin32Error();
            if (error != 122)
                return null;
            masks = new GROUP_AFFINITY[required];
            if (!GetProcessDefaultCpuSetMasks(process, masks, required, out required)) {
                error = Marshal.GetLastWin32Error();
                return null;
            }
            error = 0;
            return masks;
        }

        // The group a thread's affinity is in; -1 and error set when it
        // cannot be read (the thread may have ended).
        public static int ThreadGroup(int tid, out int error)
        {
            IntPtr thread = OpenThread(THREAD_QUERY_LIMITED_INFORMATION, false, tid);
            GROUP_AFFINITY affinity;

            error = 0;
            if (thread == IntPtr.Zero) {
                error = Marshal.GetLastWin32Error();
                return -1;
            }
            try {
                if (!GetThreadGroupAffinity(thread, out affinity)) {
                    error = Marshal.GetLastWin32Error();
                    return -1;
                }
                return affinity.Group;
            } finally {
                CloseHandle(thread);
            }
        }

        // 0 and the masks, or the error (87 before Windows 11 22H2, which
        // cannot read this class back).
        public static int PowerThrottling(IntPtr process, out uint control, out uint state)
        {
            PROCESS_POWER_THROTTLING_STATE s = new PROCESS_POWER_THROTTLING_STATE();

            s.Version = 1; // PROCESS_POWER_THROTTLING_CURRENT_VERSION
            control = 0;
            state = 0;
            if (!GetProcessInformation(process, ProcessPowerThrottling, ref s,
                    (uint)Marshal.SizeOf(typeof(PROCESS_POWER_THROTTLING_STATE))))
                return Marshal.GetLastWin32Error();
            control = s.ControlMask;
            state = s.StateMask;
            return 0;
        }

        [DllImport("powrprof.dll")]
        public static extern uint PowerGetActiveScheme(IntPtr root, out IntPtr scheme);
        [DllImport("powrprof.dll")]
        public static extern uint PowerReadACValueIndex(IntPtr root, ref Guid scheme,
            ref Guid sub, ref Guid setting, out uint value);
        [DllImport("powrprof.dll")]
        public static extern uint PowerReadDCValueIndex(IntPtr root, ref Guid scheme,
            ref Guid sub, ref Guid setting, out uint value);
        [DllImport("kernel32.dll")]
        public static extern IntPtr LocalFree(IntPtr mem);

        // The active scheme's CPMINCORES and CPMINCORES1, AC and DC, as
        // "ac0/dc0 ac1/dc1" (percent); null and error set when unreadable.
        public static string MinCores(out uint error)
        {
            Guid sub = new Guid("54533251-82be-4824-96c1-47b60b740d00");
            Guid[] settings = { new Guid("0cc5b647-c1df-4637-891a-dec35c318583"),
                                new Guid("0cc5b647-c1df-4637-891a-dec35c318584") };
            IntPtr p;
            StringBuilder text = new StringBuilder();

            error = PowerGetActiveScheme(IntPtr.Zero, out p);
            if (error != 0)
                return null;
            Guid scheme = (Guid)Marshal.PtrToStructure(p, typeof(Guid));
            LocalFree(p);
            foreach (Guid g in settings) {
                Guid setting = g;
                uint ac, dc;

                error = PowerReadACValueIndex(IntPtr.Zero, ref scheme, ref sub, ref setting, out ac);
                if (error == 0)
                    error = PowerReadDCValueIndex(IntPtr.Zero, ref scheme, ref sub, ref setting, out dc);
                else
                    dc = 0;
                if (error != 0)
                    return null;
                text.Append(text.Length > 0 ? " " : "").Append(ac).Append('/').Append(dc);
            }
            return text.ToString();
        }
    }
}
'@

# The test program: THREADS sleeping threads, one more after 500 ms (a thread
# created after the start), alive for SECONDS.
$programSource = @'
using System;
using System.Runtime.InteropServices;
using System.Threading;

public static class CpuPolicyCheckProgram
{
    [StructLayout(LayoutKind.Sequential)]
    struct GROUP_AFFINITY
    {
        public UIntPtr Mask;
        public ushort Group, R0, R1, R2;
    }

    [DllImport("kernel32.dll")]
    static extern IntPtr GetCurrentThread();
    [DllImport("kernel32.dll")]
    static extern IntPtr GetCurrentProcess();
    [DllImport("kernel32.dll")]
    static extern uint GetActiveProcessorCount(ushort group);
    [DllImport("kernel32.dll")]
    static extern bool SetThreadGroupAffinity(IntPtr thread,
        ref GROUP_AFFINITY affinity, IntPtr previous);
    [DllImport("kernel32.dll")]
    static extern bool SetProcessAffinityMask(IntPtr process, UIntPtr mask);

    // "group0": the threads are made from a thread in group 0, so that
    // they start there ("each newly created thread is assigned to the
    // same group as the thread that created it"); "narrow": the process
    // also narrows itself to group 0 (what a rule then undoes on
    // Windows 11 and Server 2022, where processes span groups).
    static void InGroup0(bool narrow)
    {
        uint n = GetActiveProcessorCount(0);
        ulong mask = n >= 64 ? ulong.MaxValue : (1UL << (int)n) - 1;
        GROUP_AFFINITY ga = new GROUP_AFFINITY();

        ga.Mask = new UIntPtr(mask);
        ga.Group = 0;
        SetThreadGroupAffinity(GetCurrentThread(), ref ga, IntPtr.Zero);
        if (narrow)
            SetProcessAffinityMask(GetCurrentProcess(), new UIntPtr(mask));
    }

    public static int Main(string[] args)
    {
        int threads = args.Length > 0 ? int.Parse(args[0]) : 4;
        int seconds = args.Length > 1 ? int.Parse(args[1]) : 20;

        if (args.Length > 2)
            InGroup0(args[2] == "narrow");
        for (int i = 0; i < threads; i++)
            Start();
        Thread.Sleep(500);
        Start();
        Thread.Sleep(seconds * 1000);
        return 0;
    }

    static void Start()
    {
        Thread t = new Thread(Sleeper);
        t.IsBackground = true;
        t.Start();
    }

    static void Sleeper()
    {
        for (;;)
            Thread.Sleep(50);
    }
}
'@

$work = Join-Path $env:ProgramData 'cpupolicy-check'
$bin = Join-Path $work 'bin'
$other = Join-Path $env:TEMP 'cpupolicy-check-other'
$rulesDir = Join-Path $DataDir 'rules.d'
$ruleFile = Join-Path $rulesDir 'zz-check-ps1.rules'
$logFile = Join-Path $DataDir 'cpupolicyd.log'
$ifeoRoot = 'SOFTWARE\Microsoft\Windows NT\CurrentVersion\Image File Execution Options'
$names = @{
    raise  = 'cpcheck-raise.exe'   # class high, thread highest, EcoQoS off
    lower  = 'cpcheck-lower.exe'   # class below-normal: PerfOptions
    pcores = 'cpcheck-pcores.exe'  # cores performance
    groups = 'cpcheck-groups.exe'  # spread group
    parking = 'cpcheck-parking.exe' # parking off
    trust  = 'cpcheck-trust.exe'   # class idle, in a rule file refused
    latency = 'cpcheck-latency.exe' # class high, by a glob: no PerfOptions
}
$script:started = New-Object System.Collections.ArrayList

function Exe([string]$key) { Join-Path $bin $names[$key] }

# libconfig strings: a backslash is written twice.
function Quoted([string]$path) { '"' + ($path -replace '\\', '\\') + '"' }

function Start-Test([string]$path, [int]$threads = 4, [int]$seconds = 20,
    [string]$place = '') {
    $argv = @("$threads", "$seconds")
    if ($place) { $argv += $place }
    $p = Start-Process -FilePath $path -ArgumentList $argv `
        -WindowStyle Hidden -PassThru
    [void]$script:started.Add($p)
    $p
}

function Stop-Test($p) {
    try { if (-not $p.HasExited) { $p.Kill(); $p.WaitForExit(2000) | Out-Null } } catch { }
}

# Polls until the script block is true or the deadline passes; returns the
# milliseconds it took, or -1.
function Wait-Until([scriptblock]$condition, [int]$ms = $DeadlineMs) {
    $watch = [Diagnostics.Stopwatch]::StartNew()
    while ($watch.ElapsedMilliseconds -le $ms) {
        try { if (& $condition) { return [int]$watch.ElapsedMilliseconds } } catch { }
        Start-Sleep -Milliseconds 1
    }
    -1
}

function Reload([string]$why) {
    $out = Invoke-Ctl reload
    if ($script:ctlExit -ne 0) {
        Report 'FAIL' 'reload' "$why`: cpupolicyctl reload exited $($script:ctlExit): $out"
        return $false
    }
    $true
}

function PerfOptions([string]$name) {
    $hklm = [Microsoft.Win32.RegistryKey]::OpenBaseKey(
        [Microsoft.Win32.RegistryHive]::LocalMachine,
        [Microsoft.Win32.RegistryView]::Registry64)
    try {
        $key = $hklm.OpenSubKey("$ifeoRoot\$name\PerfOptions")
        if (-not $key) { return $null }
        try {
            @{ CpuPriorityClass = $key.GetValue('CpuPriorityClass');
               IoPriority = $key.GetValue('IoPriority') }
        } finally { $key.Close() }
    } finally { $hklm.Close() }
}

function Check-Service {
    $svc = Get-CimInstance Win32_Service -Filter "Name='$Service'"
    if (-not $svc) {
        Report 'FAIL' 'service' "no service $Service (cpupolicyd.exe --install)"
        return $null
    }
    if ($svc.State -ne 'Running') {
        Report 'FAIL' 'service' "$Service is $($svc.State) (sc start $Service)"
        return $null
    }
    Report 'PASS' 'service' ("$Service runs as pid {0}, start mode {1}, account {2}" -f
        $svc.ProcessId, $svc.StartMode, $svc.StartName)
    $out = Invoke-Ctl status
    if ($script:ctlExit -eq 0) {
        Report 'PASS' 'pipe' 'cpupolicyctl status answered'
    } else {
        Report 'FAIL' 'pipe' "cpupolicyctl status exited $($script:ctlExit): $out"
    }
    [int]$svc.ProcessId
}

function Check-Privileges([int]$servicePid) {
    $err = 0
    $held = [CpuPolicyCheck.Native]::Privileges($servicePid, [ref]$err)
    if ($null -eq $held) {
        Report 'SKIP' 'privileges' "cannot read the service's token (error $err)"
        return
    }
    $extra = @($held | Where-Object { $AllowedPrivileges -notcontains ($_ -replace ' \(enabled\)$', '') })
    $list = $held -join ', '
    if ($extra.Count) {
        Report 'FAIL' 'privileges' ("held beyond the expected: {0} (all: {1})" -f ($extra -join ', '), $list)
    } elseif (-not ($held | Where-Object { $_ -like 'SeDebugPrivilege*' })) {
        Report 'FAIL' 'privileges' "SeDebugPrivilege is not held, which rules that set priority need (all: $list)"
    } else {
        Report 'PASS' 'privileges' "only $list"
    }
}

function Check-Discovery {
    if (-not (Test-Path -LiteralPath $logFile)) {
        Report 'FAIL' 'ETW discovery' "no log at $logFile"
        return
    }
    try {
        $lines = @(Get-Content -LiteralPath $logFile -Tail 5000 |
            Where-Object { $_ -match $EtwLogPattern -or $_ -match $PollLogPattern })
    } catch {
        Report 'FAIL' 'ETW discovery' "cannot read $logFile`: $_"
        return
    }
    if (-not $lines.Count) {
        Report 'FAIL' 'ETW discovery' "no line of $logFile names ETW or polling"
    } elseif ($lines[-1] -match $PollLogPattern) {
        Report 'FAIL' 'ETW discovery' "the daemon polls: $($lines[-1])"
    } else {
        Report 'PASS' 'ETW discovery' $lines[-1]
    }
}

# Starts the raising program STARTS times; each start's wait for High.
function Check-Delay {
    $waits = @()
    $atCreation = 0
    for ($i = 0; $i -lt $Starts; $i++) {
        $watch = [Diagnostics.Stopwatch]::StartNew()
        $p = Start-Test (Exe 'raise') 2 5
        $first = $true
        $ms = -1
        while ($watch.ElapsedMilliseconds -le $DeadlineMs) {
            try {
                $p.Refresh()
                if ($p.PriorityClass -eq 'High') { $ms = [int]$watch.ElapsedMilliseconds; break }
            } catch { }
            $first = $false
            Start-Sleep -Milliseconds 1
        }
        if ($first -and $ms -ge 0) { $atCreation++ }
        $waits += $ms
        Stop-Test $p
    }
    $missed = @($waits | Where-Object { $_ -lt 0 }).Count
    $sorted = @($waits | Where-Object { $_ -ge 0 } | Sort-Object)
    if ($missed) {
        Report 'FAIL' 'start to class' "$missed of $Starts starts not High within $DeadlineMs ms"
    } else {
        $note = ''
        if ($atCreation) { $note = " ($atCreation already High at the first look: PerfOptions with ifeo_perf_options = all?)" }
        Report 'PASS' 'start to class' ("High after {0} ms (median of {1}, max {2} ms, from Start-Process){3}" -f
            $sorted[[int][math]::Floor($sorted.Count / 2)], $Starts, $sorted[-1], $note)
    }
}

# UNRUN: written without a Windows machine (no PowerShell where it was
# written); what it prints has not been seen yet.
# Start to class: LATENCYSTARTS starts of a program a rule gives the high
# class by a glob (so never by PerfOptions at creation: ETW's path alone),
# each timed from the process's creation time (GetProcessTimes) to the
# first GetPriorityClass that answers HIGH, polled in a spin from C# (a
# PowerShell loop, or Start-Sleep's 15.6 ms timer, would be the figure);
# p50 and p99 (nearest rank) printed. The issue's bar: within 100 ms.
$latencySource = @'
using System;
using System.Runtime.InteropServices;
using System.Threading;

public static class CpuPolicyLatency
{
    [DllImport("kernel32.dll")]
    static extern void GetSystemTimePreciseAsFileTime(out long now);
    [DllImport("kernel32.dll")]
    static extern uint GetPriorityClass(IntPtr process);
    [DllImport("kernel32.dll", SetLastError = true)]
    static extern bool GetProcessTimes(IntPtr process, out long created,
        out long exited, out long kernel, out long user);

    const uint High = 0x80;

    // Milliseconds from the creation of the process to HIGH seen, or -1
    // when not HIGH within deadlineMs.
    public static double ToHigh(IntPtr process, int deadlineMs)
    {
        long created, exited, kernel, user, now;

        if (!GetProcessTimes(process, out created, out exited, out kernel, out user))
            return -1;
        for (;;) {
            bool high = GetPriorityClass(process) == High;

            GetSystemTimePreciseAsFileTime(out now);
            if (high)
                return (now - created) / 10000.0;
            if ((now - created) / 10000 > deadlineMs)
                return -1;
            Thread.Yield();
        }
    }
}
'@

function Check-Latency {
    if (-not ('CpuPolicyLatency' -as [type])) { Add-Type -TypeDefinition $latencySource }
    $waits = @()
    for ($i = 0; $i -lt $LatencyStarts; $i++) {
        $p = Start-Test (Exe 'latency') 1 2
        $waits += [CpuPolicyLatency]::ToHigh($p.Handle, $DeadlineMs)
        Stop-Test $p
    }
    $missed = @($waits | Where-Object { $_ -lt 0 }).Count
    $sorted = @($waits | Where-Object { $_ -ge 0 } | Sort-Object)
    if (-not $sorted.Count) {
        Report 'FAIL' 'start to class latency' "none of $LatencyStarts starts High within $DeadlineMs ms"
        return
    }
    $p50 = $sorted[[int][math]::Ceiling(0.50 * $sorted.Count) - 1]
    $p99 = $sorted[[int][math]::Ceiling(0.99 * $sorted.Count) - 1]
    $text = 'p50 {0:F1} ms, p99 {1:F1} ms, max {2:F1} ms over {3} starts, from creation' -f
        $p50, $p99, $sorted[-1], $LatencyStarts
    if ($missed) {
        Report 'FAIL' 'start to class latency' "$missed of $LatencyStarts starts not High within $DeadlineMs ms; $text"
    } elseif ($p99 -gt $LatencyLimitMs) {
        Report 'FAIL' 'start to class latency' "p99 above $LatencyLimitMs ms: $text"
    } else {
        Report 'PASS' 'start to class latency' $text
    }
}

# UNRUN: written without a Windows machine, as Check-Latency.
# The probe: a frame every 16.7 ms, each 11 ms of CPU work (a loop
# calibrated on the idle machine, not 11 ms of the wall clock, which a
# starved frame would get all the same), its lateness the time its work
# ended past its slot's end; a frame that ends past the next slot's start
# makes the slots it overran missed too, as a game drops them. A hog:
# THREADS spinning threads for SECONDS.
$frameSource = @'
using System;
using System.Collections.Generic;
using System.Diagnostics;
using System.Runtime.InteropServices;
using System.Threading;

public static class CpuPolicyFrames
{
    [DllImport("winmm.dll")]
    static extern uint timeBeginPeriod(uint ms);
    [DllImport("winmm.dll")]
    static extern uint timeEndPeriod(uint ms);

    public const double PeriodMs = 1000.0 / 60;
    public const double WorkMs = 11.0;
    static volatile int sink;

    static void Spin(long n)
    {
        int x = 0;
        for (long i = 0; i < n; i++)
            x += (int)(i ^ (i >> 3));
        sink = x;
    }

    // Iterations that take WorkMs on this machine now (the fastest of 20
    // tries: the idle machine's figure).
    public static long Calibrate()
    {
        long n = 1000000;
        double best = double.MaxValue;
        for (int i = 0; i < 20; i++) {
            Stopwatch w = Stopwatch.StartNew();
            Spin(n);
            best = Math.Min(best, w.Elapsed.TotalMilliseconds);
        }
        return (long)(n * WorkMs / best);
    }

    // Runs seconds of frames; hogAt: when hogStart is called. Returns
    // the lateness (ms) of each slot from hogAt on, a missed slot as its
    // overrun; missed counts the slots that ended late.
    public static double[] Run(long work, double seconds, double hogAt,
        Action hogStart, out int missed)
    {
        List<double> late = new List<double>();
        Stopwatch clock = Stopwatch.StartNew();
        bool hogs = false;
        long slot = 0;

        missed = 0;
        timeBeginPeriod(1);
        try {
            while (clock.Elapsed.TotalSeconds < seconds) {
                double start = slot * PeriodMs, now;

                if (!hogs && clock.Elapsed.TotalSeconds >= hogAt) {
                    hogs = true;
                    hogStart();
                }
                while ((now = clock.Elapsed.TotalMilliseconds) < start) {
                    if (start - now > 2)
                        Thread.Sleep(1);
                }
                Spin(work);
                now = clock.Elapsed.TotalMilliseconds;
                double over = Math.Max(0, now - (start + PeriodMs));
                long next = (long)Math.Floor(now / PeriodMs);
                if (hogs) {
                    late.Add(over);
                    if (over > 0)
                        missed++;
                    // Slots it ran through: dropped, as late as it was.
                    for (long s = slot + 1; s < next; s++) {
                        late.Add(now - (s * PeriodMs + PeriodMs));
                        missed++;
                    }
                }
                slot = Math.Max(slot + 1, next);
            }
        } finally {
            timeEndPeriod(1);
        }
        return late.ToArray();
    }
}
'@

$hogSource = @'
using System;
using System.Threading;

public static class CpuPolicyHog
{
    static volatile int sink;

    public static int Main(string[] args)
    {
        int threads = int.Parse(args[0]);
        int seconds = int.Parse(args[1]);

        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(Spin);
            t.IsBackground = true;
            t.Start();
        }
        Thread.Sleep(seconds * 1000);
        return 0;
    }

    static void Spin()
    {
        int x = 0;
        for (long i = 0; ; i++)
            sink = x += (int)i;
    }
}
'@

# One run of frames with restraint paused or resumed: its missed frames,
# its p99 lateness after the hogs started, and the lowest class a hog was
# seen at (read each second while it runs).
function Frame-Run([long]$work, [bool]$restrain) {
    $verb = if ($restrain) { 'resume' } else { 'pause' }
    $out = Invoke-Ctl restraint $verb
    if ($script:ctlExit -ne 0) { throw "cpupolicyctl restraint $verb exited $($script:ctlExit): $out" }
    $script:hogs = @()
    $cpus = [Environment]::ProcessorCount
    $life = $FrameSeconds - $FrameHogAt + 2
    $start = [Action]{
        foreach ($i in 1..2) {
            $script:hogs += Start-Process -FilePath $script:hogExe `
                -ArgumentList @("$cpus", "$life") -WindowStyle Hidden -PassThru
        }
    }
    $missed = 0
    $late = [CpuPolicyFrames]::Run($work, $FrameSeconds, $FrameHogAt, $start, [ref]$missed)
    $lowered = $false
    foreach ($h in $script:hogs) {
        try { $h.Refresh(); if ($h.PriorityClass -ne 'Normal') { $lowered = $true } } catch { }
        [void]$script:started.Add($h)
    }
    $sorted = @($late | Sort-Object)
    $p99 = if ($sorted.Count) { $sorted[[int][math]::Ceiling(0.99 * $sorted.Count) - 1] } else { 0 }
    foreach ($h in $script:hogs) { Stop-Test $h }
    @{ Missed = $missed; Frames = $sorted.Count; P99 = $p99; Lowered = $lowered }
}

function Check-Restraint {
    $out = Invoke-Ctl status
    if ($out -notmatch '(?m)^restraint: (on|paused)') {
        Report 'SKIP' 'restraint lateness' "restraint is not on in the service ($(($out -split "`n" | Select-String '^restraint:') -join ''); [restraint] enabled = true in cpupolicyd.conf)"
        return
    }
    if (-not ('CpuPolicyFrames' -as [type])) { Add-Type -TypeDefinition $frameSource }
    $script:hogExe = Join-Path $bin 'cpcheck-hog.exe'
    if (-not (Test-Path -LiteralPath $script:hogExe)) {
        Add-Type -TypeDefinition $hogSource -OutputAssembly $script:hogExe -OutputType ConsoleApplication
    }
    # This process is the frame task: exempt, as the foreground will be.
    $out = Invoke-Ctl restraint exempt $PID
    if ($script:ctlExit -ne 0) {
        Report 'FAIL' 'restraint lateness' "cpupolicyctl restraint exempt $PID exited $($script:ctlExit): $out"
        return
    }
    $work = [CpuPolicyFrames]::Calibrate()
    try {
        $off = Frame-Run $work $false
        Start-Sleep -Seconds 2
        $on = Frame-Run $work $true
    } finally {
        Invoke-Ctl restraint resume | Out-Null
    }
    $text = ('restraint off: {0} of {1} frames missed, p99 {2:F1} ms late; on: {3} of {4} missed, p99 {5:F1} ms late (hogs: 2 x {6} threads at normal, from {7} s of {8} s)' -f
        $off.Missed, $off.Frames, $off.P99, $on.Missed, $on.Frames, $on.P99,
        [Environment]::ProcessorCount, $FrameHogAt, $FrameSeconds)
    if (-not $on.Lowered) {
        Report 'FAIL' 'restraint lateness' "no hog was lowered while restraint was on; $text"
    } elseif ($on.Missed -gt $off.Missed) {
        Report 'FAIL' 'restraint lateness' "more frames missed with restraint on; $text"
    } else {
        Report 'PASS' 'restraint lateness' $text
    }
}

# UNRUN: written without a Windows machine, as Check-Latency.
# The per-user agent: the hog of Check-Restraint with a window of its own,
# which it brings to the front; GetForegroundWindow's process, read from
# here as the agent reads it.
$windowHogSource = @'
using System;
using System.Threading;
using System.Windows.Forms;

public static class CpuPolicyWindowHog
{
    static volatile int sink;

    [STAThread]
    public static int Main(string[] args)
    {
        int threads = int.Parse(args[0]);
        int seconds = int.Parse(args[1]);
        Form form = new Form();
        System.Windows.Forms.Timer life = new System.Windows.Forms.Timer();

        for (int i = 0; i < threads; i++) {
            Thread t = new Thread(Spin);
            t.IsBackground = true;
            t.Start();
        }
        form.Text = "cpupolicy check: agent";
        form.Shown += delegate { form.Activate(); };
        life.Interval = seconds * 1000;
        life.Tick += delegate { form.Close(); };
        life.Start();
        Application.Run(form);
        return 0;
    }

    static void Spin()
    {
        int x = 0;
        for (long i = 0; ; i++)
            sink = x += (int)i;
    }
}
'@

$foregroundSource = @'
using System;
using System.Runtime.InteropServices;

public static class CpuPolicyForeground
{
    [DllImport("user32.dll")]
    static extern IntPtr GetForegroundWindow();
    [DllImport("user32.dll")]
    static extern uint GetWindowThreadProcessId(IntPtr window, out uint pid);

    // The process of the foreground window; 0: none.
    public static int Pid()
    {
        uint pid = 0;
        IntPtr window = GetForegroundWindow();

        if (window != IntPtr.Zero)
            GetWindowThreadProcessId(window, out pid);
        return (int)pid;
    }
}
'@

# The MSI's Run value, read in the 64-bit view; $null: none.
function Agent-RunValue {
    $hklm = [Microsoft.Win32.RegistryKey]::OpenBaseKey(
        [Microsoft.Win32.RegistryHive]::LocalMachine,
        [Microsoft.Win32.RegistryView]::Registry64)
    try {
        $key = $hklm.OpenSubKey('Software\Microsoft\Windows\CurrentVersion\Run')
        if (-not $key) { return $null }
        try { $key.GetValue('cpupolicy agent') } finally { $key.Close() }
    } finally { $hklm.Close() }
}

function Check-Agent {
    $run = Agent-RunValue
    $installed = Join-Path $env:ProgramFiles 'cpupolicy\cpupolicyctl.exe'
    if ($null -eq $run) {
        if (Test-Path -LiteralPath $installed) {
            Report 'FAIL' 'agent Run value' "no value 'cpupolicy agent' under HKLM\Software\Microsoft\Windows\CurrentVersion\Run, with $installed installed"
        } else {
            Report 'SKIP' 'agent Run value' "no $installed`: not installed by the MSI, which writes the value"
        }
    } elseif ($run -eq "`"$installed`" agent") {
        Report 'PASS' 'agent Run value' "HKLM\Software\Microsoft\Windows\CurrentVersion\Run, 'cpupolicy agent' = $run"
    } else {
        Report 'FAIL' 'agent Run value' "'cpupolicy agent' = $run, not `"$installed`" agent"
    }
    $session = (Get-Process -Id $PID).SessionId
    $agents = @(Get-CimInstance Win32_Process -Filter "Name='cpupolicyctl.exe'" |
        Where-Object { $_.SessionId -eq $session -and $_.CommandLine -match '\sagent(\s|$)' })
    if ($agents.Count) {
        Report 'PASS' 'agent at logon' "pid $($agents[0].ProcessId) runs in session $session`: $($agents[0].CommandLine)"
    } else {
        Report 'SKIP' 'agent at logon' "no cpupolicyctl.exe agent in session $session`: log off and on after the install, for the Run key to start it"
    }

    $out = Invoke-Ctl status
    if ($out -notmatch '(?m)^restraint: on') {
        Report 'SKIP' 'agent foreground' "restraint is not on in the service ($(($out -split "`n" | Select-String '^restraint:') -join ''); [restraint] enabled = true in cpupolicyd.conf)"
        return
    }
    if (-not ('CpuPolicyForeground' -as [type])) { Add-Type -TypeDefinition $foregroundSource }
    $exe = Join-Path $bin 'cpcheck-window.exe'
    if (-not (Test-Path -LiteralPath $exe)) {
        Add-Type -TypeDefinition $windowHogSource -OutputAssembly $exe -OutputType WindowsApplication `
            -ReferencedAssemblies System.Windows.Forms
    }
    $cpus = [Environment]::ProcessorCount
    $p = Start-Process -FilePath $exe -ArgumentList @("$cpus", '90') -PassThru
    [void]$script:started.Add($p)
    try {
        Write-Host "      (click the window 'cpupolicy check: agent' if it is not in front)"
        if ((Wait-Until { [CpuPolicyForeground]::Pid() -eq $p.Id } 30000) -lt 0) {
            Report 'SKIP' 'agent foreground' "the hog's window (pid $($p.Id)) never came to the foreground (pid $([CpuPolicyForeground]::Pid()) has it): Windows' foreground lock"
            return
        }
        if ($agents.Count) {
            # The logon agent tells the daemon first: never lowered.
            $ms = Wait-Until { (Invoke-Ctl explain $p.Id) -match 'in the foreground \(declared over cpupolicyctl agent\)' } 30000
            $p.Refresh()
            if ($ms -lt 0 -or $p.PriorityClass -ne 'Normal') {
                Report 'FAIL' 'agent at logon: foreground' "class $($p.PriorityClass); explain: $(Invoke-Ctl explain $p.Id)"
            } else {
                Report 'PASS' 'agent at logon: foreground' "the hog in front kept the normal class, explain says so after $ms ms"
            }
        } else {
            $ms = Wait-Until { $p.Refresh(); $p.PriorityClass -eq 'BelowNormal' } 30000
            if ($ms -lt 0) {
                Report 'FAIL' 'agent foreground' "the hog (pid $($p.Id), $cpus spinning threads) not restrained within 30 s: class $($p.PriorityClass)"
                return
            }
        }
        $out = Invoke-Ctl agent --once --verbose
        if ($script:ctlExit -ne 0 -or $out -notmatch "(?m)^cpupolicyctl agent: $($p.Id) is in the foreground") {
            Report 'FAIL' 'agent --once' "exit $($script:ctlExit): $out"
            return
        }
        $ms = Wait-Until { $p.Refresh(); $p.PriorityClass -eq 'Normal' }
        $explain = Invoke-Ctl explain $p.Id
        if ($ms -lt 0) {
            Report 'FAIL' 'agent --once' "the daemon took it ($out) but the hog's class is $($p.PriorityClass) after $DeadlineMs ms"
        } elseif ($explain -notmatch 'in the foreground \(declared over cpupolicyctl agent\)') {
            Report 'FAIL' 'agent --once' "the class is back, but explain says: $explain"
        } else {
            Report 'PASS' 'agent --once' "$out; normal class after $ms ms; explain: $(($explain -split "`n" | Select-String 'foreground') -join '')"
        }
    } finally {
        Stop-Test $p
    }
}

function Check-Threads {
    $p = Start-Test (Exe 'raise') 4 10
    try {
        # After the late thread (500 ms) and time for its event.
        if ((Wait-Until { $p.Refresh(); $p.PriorityClass -eq 'High' }) -lt 0) {
            Report 'FAIL' 'thread priorities' "class never became High"
            return $p
        }
        Start-Sleep -Milliseconds 1500
        $p.Refresh()
        $low = @()
        $count = 0
        foreach ($t in $p.Threads) {
            try {
                $count++
                $level = $t.PriorityLevel
                if ($level -ne 'Highest' -and $level -ne 'TimeCritical') { $low += "$($t.Id): $level" }
            } catch { $count-- }
        }
        if ($low.Count) {
            Report 'FAIL' 'thread priorities' ("{0} of {1} threads below Highest: {2}" -f $low.Count, $count, ($low -join ', '))
        } else {
            Report 'PASS' 'thread priorities' "all $count threads at Highest or above, the one created after the start included"
        }
    } catch {
        Report 'FAIL' 'thread priorities' "$_"
    }
    $p
}

# The raising program also asks for efficiency_mode = "off".
function Check-EcoQoS($p) {
    $control = [uint32]0
    $state = [uint32]0
    $err = [CpuPolicyCheck.Native]::PowerThrottling($p.Handle, [ref]$control, [ref]$state)
    if ($err -eq 87) {
        Report 'SKIP' 'EcoQoS off' 'this Windows cannot read ProcessPowerThrottling back (GetProcessInformation answers ERROR_INVALID_PARAMETER before Windows 11 22H2)'
    } elseif ($err) {
        Report 'FAIL' 'EcoQoS off' "GetProcessInformation(ProcessPowerThrottling) failed: error $err"
    } elseif (($control -band 1) -and -not ($state -band 1)) {
        Report 'PASS' 'EcoQoS off' ("ControlMask 0x{0:x}, StateMask 0x{1:x}: execution speed taken over, throttling off" -f $control, $state)
    } else {
        Report 'FAIL' 'EcoQoS off' ("ControlMask 0x{0:x}, StateMask 0x{1:x}: want EXECUTION_SPEED (1) in the control mask and not in the state mask" -f $control, $state)
    }
}

function Check-Explain($p) {
    $out = Invoke-Ctl explain $p.Id
    if ($script:ctlExit -eq 0 -and $out -match 'check-raise') {
        Report 'PASS' 'explain' "names rule check-raise for pid $($p.Id)"
    } else {
        Report 'FAIL' 'explain' "exit $($script:ctlExit): $out"
    }
}

function Check-CpuSets {
    $err = 0
    $sets = [CpuPolicyCheck.Native]::CpuSets([ref]$err)
    if ($null -eq $sets) {
        Report 'FAIL' 'CPU Sets' "GetSystemCpuSetInformation failed: error $err"
        return
    }
    $classes = @($sets | ForEach-Object { $_.Efficiency } | Sort-Object -Unique)
    if ($classes.Count -lt 2) {
        Report 'SKIP' 'CPU Sets' ("one EfficiencyClass ({0}) on all {1} CPU sets: no hybrid CPU, cores = performance means all" -f $classes[0], $sets.Count)
        return
    }
    $top = $classes[-1]
    $want = @($sets | Where-Object { $_.Efficiency -eq $top } | ForEach-Object { $_.Id } | Sort-Object)
    $p = Start-Test (Exe 'pcores') 4 10
    $script:gotIds = $null
    $script:gotMasks = $null
    try {
        $ms = Wait-Until {
            $e = 0
            $ids = [CpuPolicyCheck.Native]::ProcessCpuSets($p.Handle, [ref]$e)
            if ($ids -and $ids.Count) { $script:gotIds = @($ids | Sort-Object); return $true }
            $masks = [CpuPolicyCheck.Native]::ProcessCpuSetMasks($p.Handle, [ref]$e)
            if ($masks -and $masks.Count) { $script:gotMasks = $masks; return $true }
            $false
        }
        if ($ms -lt 0) {
            Report 'FAIL' 'CPU Sets' "no default CPU sets on the test program within $DeadlineMs ms (want the $($want.Count) of EfficiencyClass $top)"
            return
        }
        if ($null -ne $script:gotIds) {
            $got = $script:gotIds
            if (($got -join ',') -eq ($want -join ',')) {
                Report 'PASS' 'CPU Sets' ("the $($got.Count) CPU sets of EfficiencyClass $top (of classes {0}), after $ms ms" -f ($classes -join ', '))
            } else {
                Report 'FAIL' 'CPU Sets' ("default CPU sets {0}, want {1} (EfficiencyClass $top)" -f ($got -join ','), ($want -join ','))
            }
        } else {
            # Masks: each group's processors of the top class.
            $bad = @()
            foreach ($m in $script:gotMasks) {
                $expect = [uint64]0
                foreach ($s in $sets) {
                    if ($s.Group -eq $m.Group -and $s.Efficiency -eq $top) { $expect = $expect -bor ([uint64]1 -shl $s.Processor) }
                }
                if ($m.Mask.ToUInt64() -ne $expect) { $bad += ("group {0}: 0x{1:x}, want 0x{2:x}" -f $m.Group, $m.Mask.ToUInt64(), $expect) }
            }
            if ($bad.Count) { Report 'FAIL' 'CPU Sets' ($bad -join '; ') }
            else { Report 'PASS' 'CPU Sets' "default CPU set masks are the processors of EfficiencyClass $top, after $ms ms" }
        }
    } finally {
        Stop-Test $p
    }
}

function Check-Groups {
    $groups = [CpuPolicyCheck.Native]::GetActiveProcessorGroupCount()
    if ($groups -lt 2) {
        Report 'SKIP' 'processor groups' "one processor group: nothing to spread over"
        return
    }
    $sizes = @(0..($groups - 1) | ForEach-Object { [CpuPolicyCheck.Native]::GetActiveProcessorCount([uint16]$_) })
    $total = ($sizes | Measure-Object -Sum).Sum
    $p = Start-Test (Exe 'groups') $total 10
    try {
        Start-Sleep -Milliseconds 2000
        $p.Refresh()
        $held = @(0) * $groups
        foreach ($t in $p.Threads) {
            $e = 0
            $g = [CpuPolicyCheck.Native]::ThreadGroup([int]$t.Id, [ref]$e)
            if ($g -ge 0 -and $g -lt $groups) { $held[$g]++ }
        }
        $all = ($held | Measure-Object -Sum).Sum
        $say = @(0..($groups - 1) | ForEach-Object { "group $_ ($($sizes[$_]) CPUs): $($held[$_]) threads" }) -join ', '
        # Each group within a third of its share of the threads.
        $short = @(0..($groups - 1) | Where-Object { $held[$_] -lt [math]::Floor($all * $sizes[$_] / $total * 2 / 3) })
        $build = [int](Get-CimInstance Win32_OperatingSystem).BuildNumber
        if ($short.Count -and $build -ge 20348) {
            # The daemon leaves the threads where Windows puts them there.
            Report 'SKIP' 'processor groups' "Windows build $build spans the groups itself (the rule does nothing here); primary groups: $say"
        } elseif ($short.Count) {
            Report 'FAIL' 'processor groups' "threads not spread over the groups: $say"
        } else {
            Report 'PASS' 'processor groups' $say
        }
    } finally {
        Stop-Test $p
    }
}

function Check-PerfOptions {
    $conf = Join-Path $DataDir 'cpupolicyd.conf'
    if ((Test-Path -LiteralPath $conf) -and
        (Select-String -LiteralPath $conf -Pattern '^\s*ifeo_perf_options\s*=\s*off\b' -Quiet)) {
        Report 'SKIP' 'PerfOptions' "ifeo_perf_options = off in $conf"
        return $false
    }
    $script:perf = $null
    $ms = Wait-Until { $script:perf = PerfOptions $names.lower; $null -ne $script:perf -and $null -ne $script:perf.CpuPriorityClass }
    $v = $script:perf
    if ($ms -lt 0 -or $null -eq $v) {
        Report 'FAIL' 'PerfOptions' "no CpuPriorityClass under Image File Execution Options\$($names.lower)\PerfOptions within $DeadlineMs ms of the reload"
        return $false
    }
    if ($v.CpuPriorityClass -eq 5 -and $v.IoPriority -eq 1) {
        Report 'PASS' 'PerfOptions' "$($names.lower): CpuPriorityClass 5 (below normal), IoPriority 1 (low)"
    } else {
        Report 'FAIL' 'PerfOptions' "$($names.lower): CpuPriorityClass $($v.CpuPriorityClass), IoPriority $($v.IoPriority); want 5 and 1"
    }
    $raise = PerfOptions $names.raise
    if ($raise -and $null -ne $raise.CpuPriorityClass) {
        Report 'PASS' 'PerfOptions, raising' "$($names.raise) has CpuPriorityClass $($raise.CpuPriorityClass): the config allows raising (ifeo_perf_options = all)"
    } else {
        Report 'PASS' 'PerfOptions, raising' "$($names.raise) (class high) has none, as ifeo_perf_options = lowering says"
    }
    $true
}

# Same-named copies in another folder: the raising one must stay Normal;
# the lowering one is lowered at creation by PerfOptions and must be put
# back to Normal by the daemon.
function Check-Impostors([bool]$perf) {
    $p = Start-Test (Join-Path $other $names.raise) 2 10
    try {
        Start-Sleep -Milliseconds 1500
        $p.Refresh()
        if ($p.PriorityClass -eq 'Normal') {
            Report 'PASS' 'impostor (raising rule)' "$other\$($names.raise) stays Normal"
        } else {
            Report 'FAIL' 'impostor (raising rule)' "$other\$($names.raise) is $($p.PriorityClass)"
        }
    } finally { Stop-Test $p }

    if (-not $perf) { return }
    $p = Start-Test (Join-Path $other $names.lower) 2 10
    try {
        $first = $p.PriorityClass
        $ms = Wait-Until { $p.Refresh(); $p.PriorityClass -eq 'Normal' }
        if ($first -eq 'BelowNormal') {
            Report 'PASS' 'PerfOptions at creation' "$other\$($names.lower) started BelowNormal, before the daemon could see it"
        } else {
            Report 'SKIP' 'PerfOptions at creation' "the first look found $first: already put back, or not applied"
        }
        if ($ms -ge 0) {
            Report 'PASS' 'impostor (lowering rule)' "$other\$($names.lower) put back to Normal after $ms ms"
        } else {
            $p.Refresh()
            Report 'FAIL' 'impostor (lowering rule)' "$other\$($names.lower) still $($p.PriorityClass) after $DeadlineMs ms"
        }
    } finally { Stop-Test $p }
}

function Check-PerfOptionsGone {
    Remove-Item -LiteralPath $ruleFile -Force
    if (-not (Reload 'rule file removed')) { return }
    $ms = Wait-Until {
        $v = PerfOptions $names.lower
        $null -eq $v -or ($null -eq $v.CpuPriorityClass -and $null -eq $v.IoPriority)
    }
    if ($ms -ge 0) {
        Report 'PASS' 'PerfOptions removed' "$($names.lower) has no PerfOptions value $ms ms after the reload"
    } else {
        Report 'FAIL' 'PerfOptions removed' "$($names.lower) still has PerfOptions values after the rule went"
    }
}

# parking = "off": CPMINCORES and CPMINCORES1 at 100 %, AC and DC, while
# the program runs, and the originals back after it exits.
function Check-Parking {
    $err = [uint32]0
    $before = [CpuPolicyCheck.Native]::MinCores([ref]$err)
    if ($null -eq $before) {
        Report 'FAIL' 'parking held' "the active scheme's CPMINCORES cannot be read: error $err"
        return
    }
    if ($before -eq '100/100 100/100') {
        Report 'SKIP' 'parking held' 'CPMINCORES and CPMINCORES1 are at 100 % already: nothing to see change'
        return
    }
    $p = Start-Test (Exe 'parking') 2 10
    $ms = Wait-Until { [CpuPolicyCheck.Native]::MinCores([ref]$err) -eq '100/100 100/100' }
    if ($ms -ge 0) {
        Report 'PASS' 'parking held' "CPMINCORES and CPMINCORES1 at 100 % AC and DC $ms ms after the start (were $before)"
    } else {
        $now = [CpuPolicyCheck.Native]::MinCores([ref]$err)
        Report 'FAIL' 'parking held' "CPMINCORES/CPMINCORES1 AC/DC are $now, not 100 % (were $before)"
    }
    Stop-Test $p
    $ms = Wait-Until { [CpuPolicyCheck.Native]::MinCores([ref]$err) -eq $before } 10000
    if ($ms -ge 0) {
        Report 'PASS' 'parking restored' "back to $before $ms ms after the holder exited"
    } else {
        $now = [CpuPolicyCheck.Native]::MinCores([ref]$err)
        Report 'FAIL' 'parking restored' "still $now 10 s after the holder exited (were $before; cpupolicyctl restore puts them back)"
    }
}

# A file copied in by an administrator is their account's unless it is
# given to Administrators: the service obeys no file another account owns.
function Set-AdminOwner([string]$path) {
    & icacls $path /setowner '*S-1-5-32-544' | Out-Null
}

# Files others may write are not obeyed (cpupolicyd(8), Files others may
# write), judged by the tokens and DACLs Wine cannot show: a rule file
# Users may write, then one Users own, refused by check and by a reload,
# which keeps the rules in force (the refused rule's idle class never
# comes); the install's takeover: all of %ProgramData%\cpupolicy owned by
# Administrators or SYSTEM, the folder's DACL protected; the service
# started on it, so C:\ProgramData's default ACL above is accepted.
function Check-Trust {
    $planted = Join-Path $rulesDir 'zz-check-trust.rules'
    try {
        @"
# Written by packaging/windows/check.ps1, removed when it ends.
version = 1;
rules = ( { name = "check-trust"; match = { exe = $(Quoted (Exe 'trust')); };
  priority = { class = "idle"; }; } );
"@ | Set-Content -LiteralPath $planted -Encoding ASCII
        Set-AdminOwner $planted
        & icacls $planted /grant '*S-1-5-32-545:(W)' | Out-Null
        $out = Invoke-Ctl check
        if ($script:ctlExit -eq 1 -and $out -match 'zz-check-trust\.rules: error: writable by S-1-5-32-545') {
            Report 'PASS' 'trust: Users may write' 'cpupolicyctl check refuses the rule file, with the fix'
        } else {
            Report 'FAIL' 'trust: Users may write' "cpupolicyctl check exited $($script:ctlExit): $out"
        }
        $out = Invoke-Ctl reload
        $p = Start-Test (Exe 'trust') 2 10
        Start-Sleep -Milliseconds $DeadlineMs
        $class = if ($p.HasExited) { 'gone' } else { $p.PriorityClass }
        Stop-Test $p
        if ($script:ctlExit -eq 1 -and $out -match 'zz-check-trust\.rules: error: writable by' -and $class -ne 'Idle') {
            Report 'PASS' 'trust: reload' "the reload refuses it and keeps the rules in force (class $class, not Idle)"
        } else {
            Report 'FAIL' 'trust: reload' "reload exited $($script:ctlExit), class $class`: $out"
        }
        & icacls $planted /remove:g '*S-1-5-32-545' | Out-Null
        & icacls $planted /setowner '*S-1-5-32-545' | Out-Null
        $out = Invoke-Ctl check
        if ($script:ctlExit -eq 1 -and $out -match 'zz-check-trust\.rules: error: owned by S-1-5-32-545') {
            Report 'PASS' 'trust: owned by Users' 'cpupolicyctl check refuses the rule file, with the fix'
        } else {
            Report 'FAIL' 'trust: owned by Users' "cpupolicyctl check exited $($script:ctlExit): $out"
        }
    } finally {
        if (Test-Path -LiteralPath $planted) {
            Set-AdminOwner $planted
            Remove-Item -LiteralPath $planted -Force -ErrorAction SilentlyContinue
        }
        Invoke-Ctl reload | Out-Null
    }
    $trusted = @('S-1-5-32-544', 'S-1-5-18')
    $others = @(@(Get-Item -LiteralPath $DataDir -Force) +
        @(Get-ChildItem -LiteralPath $DataDir -Recurse -Force) | Where-Object {
            $trusted -notcontains (Get-Acl -LiteralPath $_.FullName).GetOwner(
                [Security.Principal.SecurityIdentifier]).Value
        } | ForEach-Object { $_.FullName })
    $protected = (Get-Acl -LiteralPath $DataDir).AreAccessRulesProtected
    if ($others.Count -eq 0 -and $protected) {
        Report 'PASS' 'trust: the install' "$DataDir and all in it owned by Administrators or SYSTEM, its DACL protected"
    } else {
        Report 'FAIL' 'trust: the install' ("DACL protected: {0}; owned by another account: {1}" -f $protected, ($others -join ', '))
    }
}

# The saturation check on this machine: workers on every processor of
# every group, and a report that parses.
function Check-Saturate {
    $out = Invoke-Ctl saturate --json --seconds 3
    $status = $script:ctlExit
    try { $r = $out | ConvertFrom-Json } catch { $r = $null }
    if ($status -gt 1 -or $null -eq $r) {
        Report 'FAIL' 'saturate' "exit $status`: $out"
        return
    }
    $total = [CpuPolicyCheck.Native]::GetActiveProcessorCount(0xffff)
    $kinds = ($r.findings | ForEach-Object { $_.kind }) -join ', '
    if (-not $kinds) { $kinds = 'none' }
    $groups = @($r.cpus | ForEach-Object { $_.group } | Sort-Object -Unique).Count
    $why = "efficiency {0:N1} %, exit {1}, {2} CPUs in {3} group(s) of {4} active processors; findings: {5}" -f
        ($r.efficiency * 100), $status, @($r.cpus).Count, $groups, $total, $kinds
    if (@($r.cpus).Count -lt $total) {
        Report 'FAIL' 'saturate' "per-CPU times for fewer CPUs than the machine has: $why"
    } elseif ($status -eq 0 -or $r.findings) {
        Report 'PASS' 'saturate' $why
    } else {
        Report 'FAIL' 'saturate' "below the threshold with no finding: $why"
    }
}

# The control pipe's owner, which a program that takes the name cannot
# make SYSTEM or Administrators: what cpupolicyctl checks first.
function Check-PipeOwner {
    $client = New-Object System.IO.Pipes.NamedPipeClientStream('.', 'cpupolicy',
        [System.IO.Pipes.PipeDirection]::InOut)
    try {
        $client.Connect(5000)
        $owner = $client.GetAccessControl().GetOwner([Security.Principal.SecurityIdentifier])
        if ($owner.Value -eq 'S-1-5-32-544') {
            Report 'PASS' 'pipe owner' 'Administrators (S-1-5-32-544)'
        } else {
            Report 'FAIL' 'pipe owner' "$($owner.Value), not Administrators"
        }
    } catch {
        Report 'FAIL' 'pipe owner' "cannot read it: $_"
    } finally { $client.Dispose() }
}

# The service's own program, started from this prompt on another pipe:
# refused, as the service holds the lock in the state directory.
function Check-SecondDaemon {
    $svc = Get-CimInstance Win32_Service -Filter "Name='$Service'"
    $daemon = ($svc.PathName -replace '^"([^"]+)".*$', '$1')
    if (-not (Test-Path -LiteralPath $daemon)) {
        Report 'SKIP' 'second daemon' "no program at $daemon"
        return
    }
    $ErrorActionPreference = 'Continue'
    $out = (& $daemon -S '\\.\pipe\cpupolicy-check2' 2>&1 | ForEach-Object { "$_" }) -join ' '
    if ($LASTEXITCODE -eq 1 -and $out -match 'another cpupolicyd runs') {
        Report 'PASS' 'second daemon' $out
    } else {
        Report 'FAIL' 'second daemon' "exit $LASTEXITCODE`: $out"
    }
}

# A program of this user without its administrator rights holds every
# connection to \\.\pipe\cpupolicy and answers none, until the stop
# file appears (120 s at most).
$holderSource = @'
$held = New-Object System.Collections.ArrayList
$watch = [Diagnostics.Stopwatch]::StartNew()
while (-not (Test-Path -LiteralPath $args[0]) -and $watch.Elapsed.TotalSeconds -lt 120) {
    $p = New-Object System.IO.Pipes.NamedPipeServerStream('cpupolicy',
        [System.IO.Pipes.PipeDirection]::InOut, -1,
        [System.IO.Pipes.PipeTransmissionMode]::Byte,
        [System.IO.Pipes.PipeOptions]::Asynchronous)
    $wait = $p.BeginWaitForConnection($null, $null)
    while (-not $wait.AsyncWaitHandle.WaitOne(100)) {
        if ((Test-Path -LiteralPath $args[0]) -or $watch.Elapsed.TotalSeconds -ge 120) { exit 0 }
    }
    $p.EndWaitForConnection($wait)
    [void]$held.Add($p)
}
'@

# Each thread's group, counted per group, of a test program.
function Group-Counts($p, [int]$groups) {
    $p.Refresh()
    $held = @(0) * $groups
    foreach ($t in $p.Threads) {
        $e = 0
        $g = [CpuPolicyCheck.Native]::ThreadGroup([int]$t.Id, [ref]$e)
        if ($g -ge 0 -and $g -lt $groups) { $held[$g]++ }
    }
    , $held
}

# The processor-group cure (issue 22, point 2) on a machine of several
# groups: a pool started in group 0 under spread = "group". Before
# Windows 11 and Server 2022 (Server 2019: build 17763) each thread is
# dealt to a group in proportion to its size; from build 20348 (Server
# 2022) the pool is left as Windows spreads it, unless the process
# narrowed itself to group 0, which the rule undoes.
function Check-GroupCure {
    $groups = [CpuPolicyCheck.Native]::GetActiveProcessorGroupCount()
    if ($groups -lt 2) {
        Report 'SKIP' 'group cure' 'one processor group: nothing to spread over'
        return
    }
    $sizes = @(0..($groups - 1) | ForEach-Object { [CpuPolicyCheck.Native]::GetActiveProcessorCount([uint16]$_) })
    $total = ($sizes | Measure-Object -Sum).Sum
    $build = [int](Get-CimInstance Win32_OperatingSystem).BuildNumber
    $spans = $build -ge 20348
    $starts = if ($spans) { @('group0', 'narrow') } else { @('group0') }
    foreach ($how in $starts) {
        $p = Start-Test (Exe 'groups') $total 10 $how
        try {
            Start-Sleep -Milliseconds 2000
            $held = Group-Counts $p $groups
            $all = ($held | Measure-Object -Sum).Sum
            $say = @(0..($groups - 1) | ForEach-Object { "group $_ ($($sizes[$_]) CPUs): $($held[$_])" }) -join ', '
            $short = @(0..($groups - 1) | Where-Object { $held[$_] -lt [math]::Floor($all * $sizes[$_] / $total * 2 / 3) })
            if ($spans -and $how -eq 'group0') {
                Report 'PASS' "group cure ($how, build $build)" "left as Windows placed it: $say"
            } elseif ($short.Count) {
                Report 'FAIL' "group cure ($how, build $build)" "not dealt over the groups in proportion: $say"
            } else {
                Report 'PASS' "group cure ($how, build $build)" "dealt in proportion: $say"
            }
        } finally {
            Stop-Test $p
        }
    }
}

# Where -Step before-reboot leaves what -Step after-reboot reads: the
# originals, outside the daemon's folder and the script's work folder.
$rebootRecord = Join-Path $env:ProgramData 'cpupolicy-check-reboot.txt'

# The journal across a crash and a reboot (issue 22, point 3), first
# half: parking held off, the originals recorded, the service's process
# killed as a power loss would. The reboot is the operator's.
function Check-BeforeReboot([int]$servicePid) {
    $err = [uint32]0
    $before = [CpuPolicyCheck.Native]::MinCores([ref]$err)
    if ($null -eq $before -or $before -eq '100/100 100/100') {
        Report 'SKIP' 'journal: before reboot' "CPMINCORES/CPMINCORES1 are '$before': nothing to see restored"
        return
    }
    $p = Start-Test (Exe 'parking') 2 600
    if ((Wait-Until { [CpuPolicyCheck.Native]::MinCores([ref]$err) -eq '100/100 100/100' }) -lt 0) {
        Report 'FAIL' 'journal: before reboot' "parking not held (CPMINCORES/CPMINCORES1 AC/DC were $before)"
        return
    }
    Set-Content -LiteralPath $rebootRecord -Value $before -Encoding ASCII
    Stop-Process -Id $servicePid -Force
    Start-Sleep -Milliseconds 1000
    $now = [CpuPolicyCheck.Native]::MinCores([ref]$err)
    Report 'PASS' 'journal: before reboot' "held at $now with the service killed (originals $before in $rebootRecord): reboot now, then run -Step after-reboot"
}

# Second half: after the reboot the service starts, replays the journal
# of the earlier boot (power settings outlive a reboot), and CPMINCORES
# and CPMINCORES1, AC and DC, are back to their originals.
function Check-AfterReboot {
    if (-not (Test-Path -LiteralPath $rebootRecord)) {
        Report 'SKIP' 'journal: after reboot' "no $rebootRecord: run -Step before-reboot, then reboot"
        return
    }
    $before = (Get-Content -LiteralPath $rebootRecord -Raw).Trim()
    $err = [uint32]0
    $ms = Wait-Until { [CpuPolicyCheck.Native]::MinCores([ref]$err) -eq $before } 60000
    $now = [CpuPolicyCheck.Native]::MinCores([ref]$err)
    if ($ms -ge 0) {
        Report 'PASS' 'journal: after reboot' "CPMINCORES/CPMINCORES1 AC/DC back to $before"
        Remove-Item -LiteralPath $rebootRecord -Force
    } else {
        Report 'FAIL' 'journal: after reboot' "CPMINCORES/CPMINCORES1 AC/DC are $now, not the originals $before"
    }
}

# --uninstall gives the power settings back (issue 22, point 3): parking
# held off, then the service removed while its program runs. Last: the
# service is gone afterwards (cpupolicyd.exe --install puts it back).
function Check-UninstallPower {
    $err = [uint32]0
    $before = [CpuPolicyCheck.Native]::MinCores([ref]$err)
    if ($null -eq $before -or $before -eq '100/100 100/100') {
        Report 'SKIP' 'uninstall: power' "CPMINCORES/CPMINCORES1 are '$before': nothing to see restored"
        return
    }
    $svc = Get-CimInstance Win32_Service -Filter "Name='$Service'"
    $daemon = ($svc.PathName -replace '^"([^"]+)".*$', '$1') -replace '^(\S+\.exe).*$', '$1'
    $p = Start-Test (Exe 'parking') 2 60
    try {
        if ((Wait-Until { [CpuPolicyCheck.Native]::MinCores([ref]$err) -eq '100/100 100/100' }) -lt 0) {
            Report 'FAIL' 'uninstall: power' "parking not held (were $before)"
            return
        }
        $out = & $daemon --uninstall 2>&1 | ForEach-Object { "$_" }
        $now = [CpuPolicyCheck.Native]::MinCores([ref]$err)
        if ($now -eq $before) {
            Report 'PASS' 'uninstall: power' "CPMINCORES/CPMINCORES1 AC/DC back to $before with the holder still running"
        } else {
            Report 'FAIL' 'uninstall: power' "CPMINCORES/CPMINCORES1 AC/DC are $now after --uninstall, not $before: $($out -join ' ')"
        }
    } finally {
        Stop-Test $p
    }
}

# The install's ACLs: no allow entry on %ProgramData%\cpupolicy, its
# folders or its rule files gives Users, Authenticated Users, Everyone or
# Interactive the right to write, append, delete or change permissions.
function Check-InstallAcl {
    $others = @('S-1-5-32-545', 'S-1-5-11', 'S-1-1-0', 'S-1-5-4')
    $rights = [Security.AccessControl.FileSystemRights]'WriteData, AppendData, WriteExtendedAttributes, WriteAttributes, Delete, DeleteSubdirectoriesAndFiles, ChangePermissions, TakeOwnership'
    $bad = @()
    $items = @(Get-Item -LiteralPath $DataDir -Force) + @(Get-ChildItem -LiteralPath $DataDir -Recurse -Force)
    foreach ($item in $items) {
        foreach ($ace in (Get-Acl -LiteralPath $item.FullName).Access) {
            $sid = try { $ace.IdentityReference.Translate([Security.Principal.SecurityIdentifier]).Value } catch { '' }
            if ($others -contains $sid -and $ace.AccessControlType -eq 'Allow' -and
                ($ace.FileSystemRights -band $rights)) {
                $bad += "$($item.FullName): $sid $($ace.FileSystemRights)"
            }
        }
    }
    if ($bad.Count) {
        Report 'FAIL' 'install ACLs' (($bad -join '; ') + ' (icacls: ' + ((& icacls $DataDir) -join ' ') + ')')
    } else {
        Report 'PASS' 'install ACLs' "$($items.Count) items under $DataDir: no write or delete for Users, Authenticated Users, Everyone or Interactive"
    }
}

function Pipe-Exists {
    @([System.IO.Directory]::GetFiles('\\.\pipe\') | Where-Object { $_ -like '*\cpupolicy' }).Count -gt 0
}

function Check-PipeTaken {
    $holder = Join-Path $work 'hold-pipe.ps1'
    $stop = Join-Path $work 'hold-pipe.stop'
    $holderSource | Set-Content -LiteralPath $holder -Encoding ASCII
    Remove-Item -LiteralPath $stop -Force -ErrorAction SilentlyContinue
    $lines = @(Get-Content -LiteralPath $logFile -ErrorAction SilentlyContinue).Count
    try {
        Stop-Service -Name $Service -ErrorAction Stop
        Start-Process -FilePath runas.exe -WindowStyle Hidden -ArgumentList @(
            '/trustlevel:0x20000',
            "`"powershell.exe -NoProfile -ExecutionPolicy Bypass -File $holder $stop`"") | Out-Null
        if ((Wait-Until { Pipe-Exists } 15000) -lt 0) {
            Report 'SKIP' 'pipe taken' 'the program without administrator rights did not start (runas /trustlevel)'
            return
        }
        Start-Service -Name $Service -ErrorAction Stop
        $said = Wait-Until {
            @(Get-Content -LiteralPath $logFile | Select-Object -Skip $lines |
                Where-Object { $_ -match 'is held by pid' }).Count -gt 0 } 15000
        $line = @(Get-Content -LiteralPath $logFile | Select-Object -Skip $lines |
            Where-Object { $_ -match 'is held by' }) | Select-Object -First 1
        if ($said -lt 0 -or (Get-Service -Name $Service).Status -ne 'Running') {
            Report 'FAIL' 'pipe taken' "the service is $((Get-Service -Name $Service).Status); its log: $line"
        } else {
            Report 'PASS' 'pipe taken' "the service runs and says: $line"
        }
        $out = Invoke-Ctl -t 5 status
        if ($script:ctlExit -eq 2 -and $out -match 'refusing to talk to') {
            Report 'PASS' 'pipe impostor' $out
        } else {
            Report 'FAIL' 'pipe impostor' "cpupolicyctl exited $($script:ctlExit): $out"
        }
        New-Item -ItemType File -Force -Path $stop | Out-Null
        $ms = Wait-Until { (Invoke-Ctl -t 2 status) -and $script:ctlExit -eq 0 } 20000
        if ($ms -ge 0) {
            Report 'PASS' 'pipe freed' "the service answered $ms ms after the holder was told to let go"
        } else {
            Report 'FAIL' 'pipe freed' 'the service did not answer on the pipe within 20 s'
        }
    } finally {
        New-Item -ItemType File -Force -Path $stop | Out-Null
        if ((Get-Service -Name $Service).Status -ne 'Running') {
            Start-Service -Name $Service -ErrorAction SilentlyContinue
        }
    }
}

try {
    [Diagnostics.Process]::EnterDebugMode()
    New-Item -ItemType Directory -Force -Path $bin, $other | Out-Null
    $exe0 = Join-Path $bin 'cpcheck.exe'
    Remove-Item -LiteralPath $exe0 -Force -ErrorAction SilentlyContinue
    Add-Type -TypeDefinition $programSource -OutputAssembly $exe0 -OutputType ConsoleApplication
    foreach ($name in $names.Values) {
        Copy-Item -LiteralPath $exe0 -Destination (Join-Path $bin $name) -Force
        Copy-Item -LiteralPath $exe0 -Destination (Join-Path $other $name) -Force
    }

    $servicePid = Check-Service
    if ($null -eq $servicePid) { exit 1 }
    if ($Step -eq 'after-reboot') {
        Check-AfterReboot
        $servicePid = $null
    } else {
        Check-Privileges $servicePid
        Check-Discovery
    }

    if ($null -ne $servicePid) {
    @"
# Written by packaging/windows/check.ps1, removed when it ends.
version = 1;
rules = (
  { name = "check-raise";
    match = { exe = $(Quoted (Exe 'raise')); };
    priority = { class = "high"; thread = "highest"; efficiency_mode = "off"; };
  },
  { name = "check-lower";
    match = { exe = $(Quoted (Exe 'lower')); };
    priority = { class = "below-normal"; };
  },
  { name = "check-pcores";
    match = { exe = $(Quoted (Exe 'pcores')); };
    placement = { cores = "performance"; };
  },
  { name = "check-groups";
    match = { exe = $(Quoted (Exe 'groups')); };
    placement = { spread = "group"; };
  },
  { name = "check-parking";
    match = { exe = $(Quoted (Exe 'parking')); };
    power = { parking = "off"; };
  },
  { name = "check-latency";
    match = { exe = $(Quoted ((Exe 'latency') -replace 'latency', 'latenc?')); };
    priority = { class = "high"; };
  }
);
"@ | Set-Content -LiteralPath $ruleFile -Encoding ASCII
    Set-AdminOwner $ruleFile
    $out = Invoke-Ctl check --system windows $ruleFile
    if ($script:ctlExit -ne 0) {
        Report 'FAIL' 'rule file' "cpupolicyctl check refused it: $out"
        exit 1
    }
    if (-not (Reload 'rule file added')) { exit 1 }
    }

    if ($Step -eq 'before-reboot') {
        Check-BeforeReboot $servicePid
    } elseif ($Step -eq 'uninstall') {
        Check-UninstallPower
    } elseif ($Step -eq 'all') {
        Check-Delay
        Check-Latency
        $p = Check-Threads
        if ($p -and -not $p.HasExited) {
            Check-EcoQoS $p
            Check-Explain $p
        }
        Stop-Test $p
        Check-CpuSets
        Check-Groups
        $perf = Check-PerfOptions
        Check-Impostors $perf
        if ($perf) { Check-PerfOptionsGone }
        Check-Parking
        Check-Trust
        Check-Saturate
        Check-PipeOwner
        Check-SecondDaemon
        Check-PipeTaken
        Check-GroupCure
        Check-InstallAcl
        Check-Restraint
        Check-Agent
    }
} catch {
    Report 'FAIL' 'script' "$_ ($($_.InvocationInfo.PositionMessage))"
} finally {
    foreach ($p in $script:started) { Stop-Test $p }
    if (Test-Path -LiteralPath $ruleFile) {
        Remove-Item -LiteralPath $ruleFile -Force -ErrorAction SilentlyContinue
        Invoke-Ctl reload | Out-Null
    }
    Start-Sleep -Milliseconds 200
    Remove-Item -LiteralPath $work, $other -Recurse -Force -ErrorAction SilentlyContinue
}

if ($script:failures) {
    Write-Host "$($script:failures) failed"
    exit 1
}
Write-Host 'no check failed'
exit 0
