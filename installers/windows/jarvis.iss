; Inno Setup script: wraps the PyInstaller one-folder bundle (dist\jarvis) in a Windows
; installer. Build the bundle first on Windows, in the environment install.ps1 made:
;   <venv>\Scripts\python -m pip install pyinstaller
;   <venv>\Scripts\python -m PyInstaller --noconfirm pyinstaller.spec
;   iscc installers\windows\jarvis.iss            (Inno Setup 6)
; Model weights are not in the bundle: the optional task runs `jarvis models pull` into the
; user data dir after installing; `jarvis doctor` checks what is missing.

#define AppName "Jarvis for the room"
#define AppVersion GetEnv("JARVIS_VERSION")
#if AppVersion == ""
  #define AppVersion "0.1.0"
#endif
#define BundleDir "..\..\dist\jarvis"

[Setup]
AppId={{6C1B6F55-3E0B-4C1D-9B7E-5A1F2A8C0D47}
AppName={#AppName}
AppVersion={#AppVersion}
AppPublisher=Jarvis for the room
DefaultDirName={autopf}\Jarvis
DefaultGroupName={#AppName}
; Per-user install by default (no admin prompt); the dialog offers all users.
PrivilegesRequired=lowest
PrivilegesRequiredOverridesAllowed=dialog
ArchitecturesAllowed=x64compatible
ArchitecturesInstallIn64BitMode=x64compatible
OutputDir=..\..\dist
OutputBaseFilename=jarvis-{#AppVersion}-windows-x64-setup
; torch and the CUDA libraries make the bundle several GB: disk spanning stays off,
; LZMA2 with a large dictionary keeps the setup file small.
Compression=lzma2/ultra64
SolidCompression=yes
LZMANumBlockThreads=4
DiskSpanning=no
WizardStyle=modern
UninstallDisplayIcon={app}\jarvis.exe

[Tasks]
Name: "pullmodels"; Description: "Download the recommended models now (several GB, needs internet)"; Flags: unchecked
Name: "desktopicon"; Description: "{cm:CreateDesktopIcon}"; GroupDescription: "{cm:AdditionalIcons}"; Flags: unchecked

[Files]
Source: "{#BundleDir}\*"; DestDir: "{app}"; Flags: ignoreversion recursesubdirs createallsubdirs

[Icons]
Name: "{group}\{#AppName}"; Filename: "{app}\jarvis.exe"; Parameters: "run"
Name: "{group}\Jarvis doctor"; Filename: "{cmd}"; Parameters: "/k ""{app}\jarvis.exe"" doctor"
Name: "{group}\Download models"; Filename: "{app}\jarvis.exe"; Parameters: "models pull"
Name: "{group}\{cm:UninstallProgram,{#AppName}}"; Filename: "{uninstallexe}"
Name: "{autodesktop}\{#AppName}"; Filename: "{app}\jarvis.exe"; Parameters: "run"; Tasks: desktopicon

[Run]
Filename: "{app}\jarvis.exe"; Parameters: "models pull"; Description: "Download the recommended models"; StatusMsg: "Downloading models (resumable)..."; Tasks: pullmodels; Flags: waituntilterminated
Filename: "{cmd}"; Parameters: "/k ""{app}\jarvis.exe"" doctor"; Description: "Check this machine (jarvis doctor)"; Flags: postinstall skipifsilent nowait

[UninstallDelete]
; Pulled models and settings live in the user data dir and are kept on purpose.
Type: filesandordirs; Name: "{app}\__pycache__"
